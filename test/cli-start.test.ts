import OpenAI from "openai";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { connect, createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeUpstream, FAKE_UPSTREAM_KEY, type FakeUpstream } from "./helpers/fake-upstream.js";
import { tempConfigDir } from "./helpers/gateway.js";
import { cliEnv, runCli, spawnCli, waitForOutput } from "./helpers/cli.js";
import { freePort } from "./helpers/free-port.js";

const children: ReturnType<typeof spawnCli>[] = [];
let blocker: Server | undefined;
let upstream: FakeUpstream | undefined;
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  await new Promise<void>((r) => (blocker ? blocker.close(() => r()) : r()));
  await upstream?.close();
  blocker = upstream = undefined;
});

function start(args: string[], env: Record<string, string> = {}) {
  const child = spawnCli(["start", ...args], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), ...env }));
  children.push(child);
  return child;
}

const exited = (child: ReturnType<typeof spawnCli>) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on("exit", (code) => resolve(code))));

describe("gateway start", () => {
  it("prints a banner with both base URLs and serves /health on --port 0", async () => {
    const child = start(["--port", "0"]);
    const [, url] = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const { stdout } = child.output();
    expect(stdout).toContain(`OpenAI style     ${url}/v1`);
    expect(stdout).toContain(`Anthropic style  ${url}`);
    expect(stdout).toContain("ECHO");
    expect(stdout).toContain("gateway env");
    // Issue 47 item 15: the echo banner offers gateway add, not only gateway login.
    expect(stdout).toContain("  No real upstream is configured. Add a local server or a provider: gateway add http://127.0.0.1:11434 (or gateway add openai),\n  or connect your own gateway: gateway login --upstream https://<your-gateway>");
    const health = await (await fetch(`${url}/health`)).json();
    expect(health).toMatchObject({ status: "ok", upstream: "echo" });
    expect(Number(new URL(url!).port)).not.toBe(3000);
  });

  it("fails on a busy port, naming it and the fix, instead of moving", async () => {
    // Reading lets the server see the CLI's health probe hang up, so close() in afterEach does not wait on it.
    blocker = createServer((socket) => socket.resume());
    await new Promise<void>((r) => blocker!.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as { port: number }).port;
    const result = await runCli(["start", "--port", String(port)], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir() }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`✖ Port ${port} on 127.0.0.1 is already in use by another program.`);
    const [, suggested] = /start on a free port: `gateway start --port (\d+)`/.exec(result.stderr)!;
    expect(Number(suggested)).toBeGreaterThan(port);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("starts in front of a server on this machine with no stored key, saying so, and sends it none (issue 47 item 15)", async () => {
    const completion = { id: "c1", object: "chat.completion", created: 0, model: "tiny", choices: [{ index: 0, message: { role: "assistant", content: "local answer" }, finish_reason: "stop" }] };
    const local = (upstream = await startFakeUpstream({ script: () => ({ json: completion }) }));
    const dir = tempConfigDir();
    const child = start(["--port", "0", "--upstream", local.url], { GATEWAY_CONFIG_DIR: dir });
    const [, url] = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect(child.output().stderr).toContain(`ℹ No key is stored for ${local.url}, a server on this machine: requests go to it without one. If it needs one, run \`gateway login\` and start the gateway again.`);
    const localKey = readFileSync(join(dir, "local-key"), "utf8").trim();
    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: localKey, maxRetries: 0 });
    const reply = await openai.chat.completions.create({ model: "tiny", messages: [{ role: "user", content: "hi" }] });
    expect(reply.choices[0]!.message.content).toBe("local answer");
    expect(local.last().headers.authorization).toBeUndefined();
    expect(local.last().headers["x-api-key"]).toBeUndefined();
  });

  it("refuses to start with a real upstream and no keychain, saying the keychain is missing and both ways out", async () => {
    const started = Date.now();
    const result = await runCli(["start", "--port", "0", "--upstream", "https://gateway.example.com"], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir() }));
    expect(result.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.stderr).toContain("✖ The OS keychain is not available: no D-Bus session bus, so no Secret Service can be reached (DBUS_SESSION_BUS_ADDRESS is unset).");
    expect(result.stderr).toContain("or set GATEWAY_API_KEY in the environment to the upstream key.");
    expect(result.stderr).not.toContain("No upstream key is stored");
  });

  it("refuses to start with a real upstream whose key the keychain does not hold, naming both ways out", async () => {
    const result = await runCli(["start", "--port", "0", "--upstream", "https://never-stored.example.com"], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("✖ No upstream key is stored for https://never-stored.example.com.");
    expect(result.stderr).toContain("Run `gateway login` to store one in the OS keychain, or set GATEWAY_API_KEY.");
  });

  it("starts with GATEWAY_API_KEY when there is no keychain at all", async () => {
    upstream = await startFakeUpstream();
    const child = start(["--port", "0", "--upstream", upstream.url], { GATEWAY_API_KEY: FAKE_UPSTREAM_KEY });
    const [, url] = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect((await (await fetch(`${url}/health`)).json()).upstream).toBe(upstream.url);
  });

  it("lets an open stream finish on SIGTERM, then exits 0", async () => {
    upstream = await startFakeUpstream();
    upstream.behaviour.chunkDelayMs = 150;
    const configDir = tempConfigDir();
    const child = spawnCli(["start", "--port", "0", "--upstream", upstream.url], cliEnv({ GATEWAY_CONFIG_DIR: configDir, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY, GATEWAY_LOCAL_KEY: "gw-k" }));
    children.push(child);
    const [, url] = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer gw-k", "content-type": "application/json" },
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "a b c d e" }] }),
    });
    child.kill("SIGTERM");
    const text = await response.text();
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(await exited(child)).toBe(0);
  });

  it("exits at once on a second signal", async () => {
    upstream = await startFakeUpstream();
    upstream.behaviour.chunkDelayMs = 2_000;
    const child = spawnCli(["start", "--port", "0", "--upstream", upstream.url], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_API_KEY: FAKE_UPSTREAM_KEY, GATEWAY_LOCAL_KEY: "gw-k" }));
    children.push(child);
    const [, url] = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    // Headers back: the stream is open, and the first signal will have a request to wait for.
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer gw-k", "content-type": "application/json" },
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "a b c d e" }] }),
    });
    const pending = response.text().catch(() => "");
    child.kill("SIGINT");
    await waitForOutput(child, /Shutting down/, "stderr");
    const signalledAt = Date.now();
    child.kill("SIGINT");
    const code = await exited(child);
    expect(Date.now() - signalledAt).toBeLessThan(1_500);
    expect(code).toBe(130);
    await pending;
  });

  it("queues a burst of 600 connections that arrive while it is busy, instead of dropping some", async () => {
    const child = start(["--port", "0"]);
    const [, url] = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    // A stopped process accepts nothing, like one busy with a burst: each connection the kernel completes waits in
    // the listen queue. With Node's default queue of 511 the rest had their SYNs dropped, and each of those
    // clients waited a full second before trying again, so these connects never finished while it was stopped.
    child.kill("SIGSTOP");
    const sockets = Array.from({ length: 600 }, () => connect(Number(new URL(url!).port), "127.0.0.1"));
    try {
      await Promise.all(sockets.map((socket) => once(socket, "connect")));
    } finally {
      child.kill("SIGCONT");
      for (const socket of sockets) socket.destroy();
    }
    expect((await (await fetch(`${url}/health`)).json()).status).toBe("ok");
  });
});

describe("gateway status and doctor", () => {
  it("status exits 1 when no gateway answers on the configured port, and says how to start one", async () => {
    const port = await freePort();
    const result = await runCli(["status"], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir({ port }) }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`No gateway is running on port ${port}.`);
    expect(result.stderr).toContain("gateway start");
  });

  it("status and doctor exit 0 and name a running gateway", async () => {
    const port = await freePort();
    const configDir = tempConfigDir({ port });
    const child = spawnCli(["start"], cliEnv({ GATEWAY_CONFIG_DIR: configDir }));
    children.push(child);
    await waitForOutput(child, /listening on/);
    const status = await runCli(["status"], cliEnv({ GATEWAY_CONFIG_DIR: configDir }));
    expect(status.code).toBe(0);
    expect(status.stderr).toMatch(new RegExp(`✔ Gateway \\d+\\.\\d+\\.\\d+ is running on http://127\\.0\\.0\\.1:${port} \\(pid ${child.pid}, up \\d+ ms\\), upstream: echo\\.`));
    const doctor = await runCli(["doctor"], cliEnv({ GATEWAY_CONFIG_DIR: configDir }));
    expect(doctor.code).toBe(0);
    expect(doctor.stdout + doctor.stderr).toMatch(new RegExp(`✔ Port ${port}: your gateway \\(\\d+\\.\\d+\\.\\d+\\) is running there`));
    expect(doctor.stdout + doctor.stderr).not.toContain("✖");
  });

  it("doctor exits 1 with a ✖ line and its fix for each failed check: a refused key and a port held by another program", async () => {
    upstream = await startFakeUpstream();
    // Reading lets the server see doctor's probe hang up, so close() in afterEach does not wait on it.
    blocker = createServer((socket) => socket.resume());
    await new Promise<void>((r) => blocker!.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as { port: number }).port;
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir({ port, upstream: upstream.url }), GATEWAY_API_KEY: "sk-not-the-upstream-key" });
    const doctor = await runCli(["doctor"], env);
    const out = doctor.stdout + doctor.stderr;
    expect(doctor.code).toBe(1);
    expect(out).toContain(`✔ Upstream ${upstream.url} reachable (HTTP 401)`);
    expect(out).toContain("✖ Upstream refused the key (HTTP 401)\n    fix: Run `gateway login` with a valid key.");
    expect(out).toMatch(new RegExp(`✖ Port ${port} is used by another program\n {4}fix: Free it \\(\`lsof -i :${port}\` shows which\\), or use a free port: gateway start --port \\d+ \\(or "port" in config\\.json\\)\\.`));
    expect(out).toContain("2 checks failed.");
    expect(out).not.toContain("sk-not-the-upstream-key");
  });
});
