import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, describe, expect, it } from "vitest";
import { startPlayingUpstream } from "./helpers/agent-upstream.js";
import { agentRuns } from "./helpers/agent-run.js";
import { allText, logInToClaude } from "./helpers/claude-login.js";
import { BIN, cliEnv, recordOutput, runCli } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { completion, FAKE_UPSTREAM_KEY, startFakeUpstream, type Received } from "./helpers/fake-upstream.js";
import { freePort } from "./helpers/free-port.js";
import { tempConfigDir } from "./helpers/gateway.js";
import { readRequestLog } from "./helpers/request-records.js";
import { hasTool, privateDir, reportToolRun } from "./helpers/tools.js";

/**
 * docs/configuration.md's "Routing recipes" (SPEC 11: several keys, budgets, your own login), run as written: each recipe's
 * JSON as the config (the provider's address pointed at a fake on loopback, as a user whose server runs elsewhere
 * writes `url`), each command line as a shell runs it, through a real gateway, the official SDKs and the real Claude
 * Code.
 */

const readme = readFileSync(new URL("../docs/configuration.md", import.meta.url), "utf8");
const opened = closeAfterEach();

/** The ```json and the ```sh block that follow a bold recipe title. */
function recipe(title: string): { config: { upstreams: Record<string, Record<string, unknown>> } & Record<string, unknown>; lines: string[] } {
  const at = readme.indexOf(`**${title}.**`);
  expect(at, title).toBeGreaterThanOrEqual(0);
  const rest = readme.slice(at);
  const config = JSON.parse(/```json\n([\s\S]*?)```/.exec(rest)![1]!) as ReturnType<typeof recipe>["config"];
  const lines = /```sh\n([\s\S]*?)```/.exec(rest)![1]!.split("\n").filter((line) => line.trim() !== "");
  return { config, lines };
}

/** The recipe's upstreams given the fakes' addresses (each took its address from its kind). */
function placed(config: ReturnType<typeof recipe>["config"], urls: Record<string, string>) {
  for (const [name, url] of Object.entries(urls)) {
    expect(config.upstreams[name]!.url, name).toBeUndefined();
    config.upstreams[name] = { ...config.upstreams[name], url };
  }
  return config;
}

/** `script` run by `sh -c`, to its end. */
function runShell(script: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn("sh", ["-c", script], { env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout, stderr })));
}

const bearer = (request: Received) => request.headers.authorization?.replace(/^Bearer /, "");

const keyring = process.env.GATEWAY_TEST_KEYRING === "1";
const stopAfter: NodeJS.ProcessEnv[] = [];
afterAll(async () => {
  for (const env of stopAfter) {
    await runCli(["stop"], env);
    for (const label of ["work", "personal"]) await runCli(["logout", "openai", "--label", label], env);
  }
});

describe.skipIf(!keyring)("Two keys for one provider", () => {
  it("stores both keys under their labels, which take turns; a key answered 429 rests and the next answers the same request", async () => {
    const keys = { WORK_KEY: "sk-recipe-work-0123456789", PERSONAL_KEY: "sk-recipe-personal-0123456789" };
    const names = new Map([[keys.WORK_KEY, "work"], [keys.PERSONAL_KEY, "personal"]]);
    let busy: string | undefined;
    const openai = opened(
      await startFakeUpstream({
        script: (request) => {
          const key = bearer(request);
          if (!key || !names.has(key)) return { status: 401, json: { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } } };
          if (request.method === "GET") return { json: { object: "list", data: [{ id: "gpt-4o", object: "model", created: 1700000000, owned_by: "openai" }] } };
          if (key === busy) return { status: 429, headers: { "retry-after": "120" }, json: { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } } };
          return { json: completion({ content: `served by ${names.get(key)}` }) };
        },
      }),
    );
    const { config, lines } = recipe("Two keys for one provider");
    const home = privateDir("recipe-home-");
    const bin = join(home, ".local-bin");
    mkdirSync(bin);
    symlinkSync(BIN, join(bin, "gateway"));
    const port = await freePort();
    const env = cliEnv({
      HOME: home,
      PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
      GATEWAY_CONFIG_DIR: tempConfigDir(placed(config, { openai: openai.url })),
      GATEWAY_STATE_DIR: privateDir("recipe-state-"),
      GATEWAY_PORT: String(port),
      DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS,
      ...keys,
    });
    stopAfter.push(env);
    // Not spawnSync: the fake upstream lives in this process, and answers the key checks while the shell runs.
    const shell = await runShell(["set -e", ...lines].join("\n"), env);
    recordOutput(["(README: two keys for one provider)"], shell.stdout, shell.stderr);
    expect(shell.status, shell.stderr).toBe(0);
    // Each key was checked against the model list before it was stored.
    expect(openai.received.filter((request) => request.method === "GET").map(bearer)).toEqual([keys.WORK_KEY, keys.PERSONAL_KEY]);

    const localKey = readFileSync(join(env.GATEWAY_CONFIG_DIR!, "local-key"), "utf8").trim();
    const client = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: localKey, maxRetries: 0 });
    const ask = async () => (await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })).choices[0]!.message.content;
    const turns = [await ask(), await ask(), await ask(), await ask()];
    expect(new Set(turns)).toEqual(new Set(["served by work", "served by personal"]));
    expect(turns[0]).not.toBe(turns[1]);
    expect(turns[2]).toBe(turns[0]);
    expect(turns[3]).toBe(turns[1]);

    busy = keys.WORK_KEY;
    const sent = openai.received.length;
    expect([await ask(), await ask(), await ask()]).toEqual(["served by personal", "served by personal", "served by personal"]);
    // The work key was tried once, answered 429, and rests: the request went on at once with the personal key.
    const after = openai.received.slice(sent).map((request) => names.get(bearer(request)!));
    expect(after.filter((name) => name === "work")).toHaveLength(1);
    expect(after.filter((name) => name === "personal")).toHaveLength(3);

    const logs = await runCli(["logs", "--json"], env);
    const status = await runCli(["status"], env);
    const records = logs.stdout.trim().split("\n").map((line) => JSON.parse(line) as { key?: string; status: number });
    expect(records.filter((record) => record.status === 200).map((record) => record.key)).toEqual(expect.arrayContaining(["keychain:work", "keychain:personal"]));
    const kept = [shell.stdout, shell.stderr, logs.stdout, status.stdout, status.stderr, allText(env.GATEWAY_STATE_DIR!)].join("\n");
    expect(status.stdout + status.stderr).toContain("keychain:work");
    for (const key of Object.values(keys)) expect(kept).not.toContain(key);
  }, 90_000);
});

describe("A daily cap", () => {
  it("stops requests once today's estimated spend reaches it: 429 naming the budget, and gateway stats shows it", async () => {
    // Each answer reports a million input tokens: $6 at Claude Sonnet 4.5's price for a long context, over the $5 at once.
    const anthropic = opened(
      await startFakeUpstream({
        script: (request) =>
          request.headers["x-api-key"] === FAKE_UPSTREAM_KEY
            ? { json: { id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text: "hi" }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1_000_000, output_tokens: 5 } } }
            : { status: 401, json: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } } },
      }),
    );
    const { config, lines } = recipe("A daily cap");
    const port = await freePort();
    const env = cliEnv({
      GATEWAY_CONFIG_DIR: tempConfigDir(placed(config, { anthropic: anthropic.url })),
      GATEWAY_STATE_DIR: privateDir("recipe-state-"),
      GATEWAY_PORT: String(port),
      GATEWAY_API_KEY: FAKE_UPSTREAM_KEY,
    });
    stopAfter.push(env);
    const started = await runCli(["start", "--detach"], env);
    expect(started.code, started.stderr).toBe(0);
    const localKey = readFileSync(join(env.GATEWAY_CONFIG_DIR!, "local-key"), "utf8").trim();
    const client = new Anthropic({ baseURL: `http://127.0.0.1:${port}`, apiKey: localKey, maxRetries: 0 });
    const ask = () => client.messages.create({ model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user", content: "hi" }] });
    await ask();
    const refused = await ask().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.RateLimitError);
    const error = refused as InstanceType<typeof Anthropic.RateLimitError>;
    expect(anthropic.received).toHaveLength(1);
    expect(Number(error.headers?.get("retry-after"))).toBeGreaterThan(0);
    expect((error.error as { error: { type: string; message: string } }).error).toMatchObject({
      type: "rate_limit_error",
      message: expect.stringMatching(/^The overall daily budget \(\$5\.00\) is spent: \$6\.00 estimated since the day began, so the request was not sent\. It resets at .+ \(local time\)\./),
    });

    expect(lines).toEqual(["gateway stats"]);
    // The gateway writes its log at most every 100 ms (request-log/log-file.ts): on a loaded machine `stats` ran before
    // the answered request's line was written, and read none. A person typing the command is never that quick.
    await expect.poll(() => readRequestLog(env.GATEWAY_STATE_DIR!).map((record) => record.status)).toEqual([200, 429]);
    const stats = await runCli(["stats"], env);
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toMatch(/^all, daily +\$6\.00 +\$5\.00 +120% /m);
    const json = JSON.parse((await runCli(["stats", "--json"], env)).stdout) as { budgets: unknown[] };
    expect(json.budgets).toEqual([
      // $6 for the input, $22.50 a million for the 5 output tokens (to the micro-dollar).
      { scope: "all", period: "daily", limitUsd: 5, spentUsd: 6.000113, unpricedRequests: 0, resetsAt: expect.any(String) },
      { scope: "anthropic", period: "monthly", limitUsd: 60, spentUsd: 6.000113, unpricedRequests: 0, resetsAt: expect.any(String) },
    ]);
  });
});

const setUp = agentRuns();
const TOKEN = "sk-ant-oat01-recipe-subscription-token-0123456789";

describe.skipIf(!hasTool("claude"))("Claude Code with your subscription", () => {
  it("keeps its login for Claude models, while qwen goes to Ollama without it", async () => {
    reportToolRun("claude", "native", "messages");
    const anthropic = await startPlayingUpstream(() => ({ move: { kind: "text", text: "Answered with your subscription." } }), {
      refuse: (request) => (request.headers.authorization === `Bearer ${TOKEN}` ? undefined : { status: 401, json: { type: "error", error: { type: "authentication_error", message: "invalid bearer token" } } }),
    });
    const ollama = opened(await startPlayingUpstream(() => ({ move: { kind: "text", text: "Answered by Ollama." } })));
    const run = setUp(anthropic, "messages");
    const { config, lines } = recipe("Claude Code with your subscription");
    writeFileSync(join(run.env.GATEWAY_CONFIG_DIR!, "config.json"), JSON.stringify(placed(config, { anthropic: anthropic.url, ollama: ollama.url })));
    logInToClaude(run.home, TOKEN);

    expect(lines).toEqual(["gateway run --own-login claude"]);
    const args = lines[0]!.split(" ").slice(2);
    const claude = await run.run([...args, "-p", "Say hello.", "--model", "claude-sonnet-4-5"]);
    expect(claude.stdout, claude.stderr).toContain("Answered with your subscription.");
    const qwen = await run.run([...args, "-p", "Say hello.", "--model", "qwen3-coder"]);
    expect(qwen.stdout, qwen.stderr).toContain("Answered by Ollama.");

    const posts = anthropic.received.filter((request) => request.method === "POST");
    expect(posts.length).toBeGreaterThan(0);
    for (const request of posts) expect([request.headers.authorization, request.headers["x-api-key"]]).toEqual([`Bearer ${TOKEN}`, undefined]);
    expect(ollama.received.length).toBeGreaterThan(0);
    for (const request of ollama.received) expect(["authorization", "x-api-key", "x-goog-api-key"].filter((name) => request.headers[name] !== undefined)).toEqual([]);
    const logs = await runCli(["logs", "--json"], run.env);
    const kept = [claude.stdout, claude.stderr, qwen.stdout, qwen.stderr, logs.stdout, allText(run.state)].join("\n");
    expect(logs.stdout).toContain('"upstream":"ollama"');
    expect(kept).not.toContain(TOKEN);
  }, 240_000);
});
