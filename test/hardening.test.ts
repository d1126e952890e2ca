import { chmodSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cliEnv, runCli, spawnCli, waitForOutput } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { freePort } from "./helpers/free-port.js";
import { LOCAL_KEY, tempConfigDir, useGatewayPair } from "./helpers/gateway.js";
import { chatHeaders, messagesHeaders, rawRequest } from "./helpers/http.js";

/** What the adversarial probe and the first-time user found; every test here failed on the code they reviewed. */

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());
afterEach(() => {
  upstream.behaviour.fail = undefined;
  upstream.behaviour.headers = {};
});

const fakeEnv = (extra: Record<string, string> = {}) =>
  cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_UPSTREAM: upstream.url, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY, ...extra });

describe("the CLI never prints a key an upstream echoes back", () => {
  it.each([
    ["chat", ["chat", "-m", "m", "hi"]],
    ["chat --api messages", ["chat", "--api", "messages", "-m", "m", "hi"]],
    ["models", ["models"]],
    ["models --json", ["models", "--json"]],
  ])("%s", async (_name, args) => {
    upstream.behaviour.fail = { status: 401, body: { error: { message: `bad key Bearer ${FAKE_UPSTREAM_KEY} and ${LOCAL_KEY}` } } };
    const result = await runCli(args, fakeEnv({ GATEWAY_LOCAL_KEY: LOCAL_KEY }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("The upstream answered 401: bad key Bearer *** and ***");
    expect(result.stdout + result.stderr).not.toContain(FAKE_UPSTREAM_KEY);
    expect(result.stdout + result.stderr).not.toContain(LOCAL_KEY);
  });

  it("models --json of a 200 list that names the key", async () => {
    upstream.behaviour.fail = { status: 200, body: { object: "list", data: [{ id: FAKE_UPSTREAM_KEY }] } };
    const result = await runCli(["models", "--json"], fakeEnv());
    expect(JSON.parse(result.stdout)).toEqual({ object: "list", data: [{ id: "***" }] });
  });

  it("start --verbose redacts a key by value, whatever the header's name", async () => {
    upstream.behaviour.headers = { "x-trace": `Bearer ${FAKE_UPSTREAM_KEY}` };
    const child = spawnCli(["start", "--port", "0", "--verbose", "--no-request-log"], fakeEnv({ GATEWAY_LOCAL_KEY: LOCAL_KEY }));
    try {
      const [, url] = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
      await rawRequest(url!, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", messages: [] }) });
      await waitForOutput(child, /< x-trace: .*/);
      expect(child.output().stdout).toContain("< x-trace: Bearer ***");
      expect(child.output().stdout).not.toContain(FAKE_UPSTREAM_KEY);
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });
});

describe("files in the config and state directories", () => {
  const dirs = () => {
    const root = mkdtempSync(join(tmpdir(), "gateway-files-"));
    const config = join(root, "config");
    const state = join(root, "state");
    mkdirSync(config, { mode: 0o700 });
    mkdirSync(state, { mode: 0o700 });
    return { root, config, state, env: cliEnv({ GATEWAY_CONFIG_DIR: config, GATEWAY_STATE_DIR: state }) };
  };

  it("refuses a symlinked requests.jsonl instead of appending to where it points", async () => {
    const d = dirs();
    const target = join(d.root, "victim.sh");
    writeFileSync(target, "echo safe\n");
    symlinkSync(target, join(d.state, "requests.jsonl"));
    const child = spawnCli(["start", "--port", "0"], d.env);
    try {
      const [, url] = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
      await rawRequest(url!, { method: "POST", path: "/v1/chat/completions", headers: { ...chatHeaders("wrong"), "user-agent": "$(rm -rf ~)" }, body: "{}" });
      await expect.poll(() => child.output().stderr, { timeout: 5_000 }).toContain(`${join(d.state, "requests.jsonl")} is a symbolic link`);
      expect(readFileSync(target, "utf8")).toBe("echo safe\n");
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });

  it("refuses a symlinked local-key, and a FIFO there neither hangs nor is read", async () => {
    const d = dirs();
    writeFileSync(join(d.root, "elsewhere"), "gw-attacker-chosen-key\n", { mode: 0o600 });
    symlinkSync(join(d.root, "elsewhere"), join(d.config, "local-key"));
    const linked = await runCli(["env"], d.env);
    expect(linked.code).toBe(1);
    expect(linked.stderr).toContain(`${join(d.config, "local-key")} is a symbolic link; gateway only uses regular files there.`);
    expect(linked.stdout).toBe("");

    const f = dirs();
    execFileSync("mkfifo", [join(f.config, "local-key")]);
    const started = Date.now();
    const fifo = await runCli(["env"], f.env, undefined, 5_000);
    expect(fifo.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(fifo.stderr).toContain(`${join(f.config, "local-key")} is not a regular file.`);
  });

  it("tightens a local-key others can read to 0600", async () => {
    const d = dirs();
    writeFileSync(join(d.config, "local-key"), "gw-loose-key-AAAAAAAAAAAAAAAA\n");
    chmodSync(join(d.config, "local-key"), 0o644);
    const result = await runCli(["env", "--json"], d.env);
    expect(JSON.parse(result.stdout).OPENAI_API_KEY).toBe("gw-loose-key-AAAAAAAAAAAAAAAA");
    expect(statSync(join(d.config, "local-key")).mode & 0o777).toBe(0o600);
  });

  it("refuses a config directory other users can write to, naming it and the fix", async () => {
    const d = dirs();
    writeFileSync(join(d.config, "config.json"), JSON.stringify({ upstream: "https://attacker.example" }));
    chmodSync(d.config, 0o777);
    const result = await runCli(["env"], d.env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${d.config} can be written by other users, so gateway will not use the files in it.`);
    expect(result.stderr).toContain(`chmod 700 ${d.config}`);
  });
});

describe("protocol edges", () => {
  const pair = useGatewayPair();

  /** Sends raw bytes and returns the status line and body. */
  async function raw(url: string, request: string): Promise<string> {
    const { port } = new URL(url);
    const socket = connect(Number(port), "127.0.0.1");
    await once(socket, "connect");
    socket.end(request);
    let out = "";
    for await (const chunk of socket) out += chunk;
    return out;
  }

  it.each(["127.0.0.1:evil", "localhost:evil.example", "[::1]evil.example", "127.0.0.1:80@evil.example"])("refuses Host %s with 403", async (host) => {
    const { gateway } = await pair.start();
    const res = await rawRequest(gateway.url, { path: "/health", headers: { host } });
    expect(res.status).toBe(403);
  });

  it("refuses two Host headers with 400, whatever the order", async () => {
    const { gateway, upstream: up } = await pair.start();
    for (const hosts of [["127.0.0.1", "evil.example"], ["evil.example", "127.0.0.1"]]) {
      const out = await raw(gateway.url, `GET /v1/models HTTP/1.1\r\nHost: ${hosts[0]}\r\nHost: ${hosts[1]}\r\nAuthorization: Bearer ${LOCAL_KEY}\r\nConnection: close\r\n\r\n`);
      expect(out.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
      expect(out).toContain('"code":"repeated_header"');
    }
    expect(up.received).toHaveLength(0);
  });

  it("refuses two anthropic-version headers with 400", async () => {
    const { gateway, upstream: up } = await pair.start();
    const headers = [...Object.entries(messagesHeaders(LOCAL_KEY)).flat(), "anthropic-version", "2099-evil"];
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers, body: JSON.stringify({ model: "m", max_tokens: 1, messages: [] }) });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ type: "error", error: { type: "invalid_request_error", message: "The anthropic-version header was sent more than once. Send it once." } });
    expect(up.received).toHaveLength(0);
  });

  it("gives a working hint for Origin null and an empty Origin", async () => {
    const { gateway } = await pair.start();
    for (const origin of ["null", ""]) {
      const res = await rawRequest(gateway.url, { path: "/v1/models", headers: { origin, authorization: `Bearer ${LOCAL_KEY}` } });
      expect(res.status).toBe(403);
      const message = JSON.parse(res.body).error.message as string;
      expect(message).toBe(`Origin "${origin}" is not allowed. Only pages served from an http(s) origin can be allowed (with --cors <origin>); this one cannot.`);
    }
  });

  it("records the model of unchecked JSON bodies such as /v1/responses", async () => {
    const { gateway } = await pair.start();
    await rawRequest(gateway.url, { method: "POST", path: "/v1/responses", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ input: "x", model: "gpt-5-codex", tools: [{ model: "nested" }] }) });
    await expect.poll(() => gateway.records.at(-1)?.model).toBe("gpt-5-codex");
  });
});

describe("an upstream that sends an unrequested 100 Continue", () => {
  const opened = closeAfterEach();
  const pair = useGatewayPair();

  // undici refuses any 100 it did not ask for ("bad response"); what the gateway can do is never send the request again.
  it("is never resent: one request upstream, and a 502 that says why", async () => {
    const upstream = opened(await startFakeUpstream({ script: () => ({ continueFirst: true, json: { ok: true } }) }));
    const { gateway } = await pair.start({ flags: { upstream: upstream.url } });
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", messages: [] }) });
    expect(res.status).toBe(502);
    expect(JSON.parse(res.body).error.message).toMatch(/sent a reply the gateway cannot read \(such as an unrequested 100 Continue\)\. It was not sent again/);
    expect(upstream.received).toHaveLength(1);
  });
});

describe("first-time user rough edges", () => {
  it("network failures read as plain sentences with a next step, never as a bug", async () => {
    const port = await freePort();
    const refused = await runCli(["chat", "-m", "m", "hi"], fakeEnv({ GATEWAY_UPSTREAM: `http://127.0.0.1:${port}` }));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`The upstream http://127.0.0.1:${port} refused the connection. Start the server on this machine, or fix the port in the upstream URL.`);
    const unknown = await runCli(["chat", "-m", "m", "hi"], fakeEnv({ GATEWAY_UPSTREAM: "https://no-such-host.invalid" }));
    expect(unknown.stderr).toContain("The upstream's host name (https://no-such-host.invalid) could not be found. Check the upstream URL for typos");
    for (const result of [refused, unknown]) {
      expect(result.stderr).not.toMatch(/bug|ECONN|ENOTFOUND|UND_ERR/);
    }
  });

  it("a browser-unsafe port says so, and how to choose another", async () => {
    const result = await runCli(["start", "--port", "6000"], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir() }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Port 6000 is on the list of ports browsers refuse to connect to, so gateway does not serve on it.");
    // the suggested port is one that is free now, never 6000's neighbour on the list or a busy 8484
    expect(result.stderr).toMatch(/Choose another port: `gateway start --port 600\d` \(or --port 0 for any free one\)\./);
    expect(result.stderr).not.toContain("in use");
  });

  it("login checks the keychain before it asks for anything", async () => {
    const result = await runCli(["login", "--upstream", upstream.url], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), DBUS_SESSION_BUS_ADDRESS: undefined }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("The OS keychain is not available");
    expect(result.stderr).toContain("GATEWAY_API_KEY");
    expect(result.stderr).not.toContain("standard input is not a terminal");
  });

  it("doctor shows a check that does not apply as neither ✔ nor ✖, and says why", async () => {
    const echo = await runCli(["doctor"], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), DBUS_SESSION_BUS_ADDRESS: undefined, GATEWAY_PORT: "0" }));
    expect(echo.stderr).toMatch(/^– OS keychain: .*\(not needed now: the upstream is echo\)$/m);
    expect(echo.stderr).toMatch(/^– Upstream: echo \(built in, offline\): no reachability or key to check$/m);
    const env = await runCli(["doctor"], fakeEnv({ DBUS_SESSION_BUS_ADDRESS: undefined as unknown as string, GATEWAY_PORT: "0" }));
    expect(env.stderr).toMatch(/^– OS keychain: .*\(not needed now: GATEWAY_API_KEY is set\)$/m);
  });
});
