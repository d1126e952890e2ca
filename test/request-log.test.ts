import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { followRecords } from "../src/request-log/follow-log.js";
import { createLogFile, logFilePath } from "../src/request-log/log-file.js";
import type { RequestRecord } from "../src/request-log/record.js";
import { readRecords } from "../src/request-log/read-log.js";
import { cliEnv, runCli, spawnCli, waitForOutput } from "./helpers/cli.js";
import { FAKE_UPSTREAM_KEY, replyPieces, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, tempConfigDir } from "./helpers/gateway.js";
import { chatHeaders } from "./helpers/http.js";
import { TEST_SECRETS } from "./helpers/secrets.js";

const tempDir = () => mkdtempSync(join(tmpdir(), "gateway-log-test-"));
const mode = (path: string) => statSync(path).mode & 0o777;

function record(n: number, extra: Partial<RequestRecord> = {}): RequestRecord {
  return {
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    requestId: `req_${n}`,
    method: "POST",
    path: "/v1/chat/completions",
    family: "chat",
    model: "m",
    status: 200,
    durationMs: n,
    ttfbMs: 1,
    inputTokens: 1,
    outputTokens: 2,
    cacheReadTokens: undefined,
    cacheWriteTokens: undefined,
    userAgent: "test/1.0",
    outcome: "complete",
    ...extra,
  };
}

describe("the log file", () => {
  it("is JSON lines, 0600 in a 0700 directory, without the headers a verbose record carries", async () => {
    const dir = join(tempDir(), "state");
    const file = createLogFile({ dir, onError: (m) => expect.fail(m) });
    file.sink({ ...record(1), headers: { request: { "x-api-key": "[redacted]" }, reply: {} } });
    file.sink(record(2));
    await file.close();
    expect(mode(dir)).toBe(0o700);
    expect(mode(logFilePath(dir))).toBe(0o600);
    const lines = readFileSync(logFilePath(dir), "utf8").split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("");
    expect(JSON.parse(lines[0]!)).toEqual(JSON.parse(JSON.stringify(record(1))));
    expect(lines[0]).not.toContain("headers");
  });

  it("writes what comes within the flush time together, and close() writes what is still waiting", async () => {
    const dir = tempDir();
    const file = createLogFile({ dir, flushMs: 150, onError: (m) => expect.fail(m) });
    file.sink(record(1));
    file.sink(record(2));
    const stored = () => (existsSync(logFilePath(dir)) ? readFileSync(logFilePath(dir), "utf8").split("\n").filter(Boolean).length : 0);
    expect(stored()).toBe(0);
    await expect.poll(stored, { message: "the first two records on disk" }).toBe(2);
    file.sink(record(3));
    await file.close();
    expect(stored()).toBe(3);
  });

  it("makes an existing, more open file private", async () => {
    const dir = tempDir();
    writeFileSync(logFilePath(dir), "", { mode: 0o644 });
    const file = createLogFile({ dir, onError: (m) => expect.fail(m) });
    file.sink(record(1));
    await file.close();
    expect(mode(logFilePath(dir))).toBe(0o600);
  });

  it("rotates by size, keeps `keep` older files, and reads back the newest records in order", async () => {
    const dir = tempDir();
    const lineBytes = JSON.stringify(record(10)).length + 1;
    const file = createLogFile({ dir, maxBytes: lineBytes * 5, keep: 2, onError: (m) => expect.fail(m) });
    for (let n = 10; n < 40; n++) {
      file.sink(record(n));
      // one record per write, so every rotation boundary is exercised
      await file.close();
    }
    await file.close();
    expect(readdirSync(dir).sort()).toEqual(["requests.1.jsonl", "requests.2.jsonl", "requests.jsonl"]);
    for (const name of readdirSync(dir)) {
      expect(mode(join(dir, name))).toBe(0o600);
      expect(statSync(join(dir, name)).size).toBeLessThanOrEqual(lineBytes * 5);
    }
    const all = (await readRecords(dir)).records;
    expect(all.map((r) => r.requestId)).toEqual(Array.from({ length: 15 }, (_, i) => `req_${25 + i}`));
    const newest = (await readRecords(dir, { limit: 7 })).records;
    expect(newest.map((r) => r.requestId)).toEqual(Array.from({ length: 7 }, (_, i) => `req_${33 + i}`));
    const since = (await readRecords(dir, { since: Date.parse(record(36).time) })).records;
    expect(since.map((r) => r.requestId)).toEqual(["req_36", "req_37", "req_38", "req_39"]);
  });

  it("skips torn lines instead of failing", async () => {
    const dir = tempDir();
    writeFileSync(logFilePath(dir), `${JSON.stringify(record(1))}\n{"time":"2026-01-01T00:00:0\nnot json\n${JSON.stringify(record(2))}\n`);
    expect((await readRecords(dir)).records.map((r) => r.requestId)).toEqual(["req_1", "req_2"]);
  });

  it("reports a failing disk once, drops what does not fit the queue, and never throws into the request path", async () => {
    const notADir = join(tempDir(), "file");
    writeFileSync(notADir, "");
    const errors: string[] = [];
    const file = createLogFile({ dir: notADir, maxQueue: 3, onError: (m) => errors.push(m) });
    for (let n = 0; n < 50; n++) file.sink(record(n));
    await file.close();
    for (let n = 0; n < 5; n++) file.sink(record(n));
    await file.close();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^Cannot write the request log in .*file: .*Requests are still served; they are just not logged\.$/);
  });

  it("is followed across a rotation", async () => {
    const dir = tempDir();
    const seen: string[] = [];
    const file = createLogFile({ dir, maxBytes: 600, keep: 1, onError: (m) => expect.fail(m) });
    file.sink(record(1));
    await file.close();
    const stop = followRecords(dir, (await readRecords(dir)).end, (r) => seen.push(r.requestId), (e) => expect.fail(e.message));
    try {
      for (let n = 2; n < 8; n++) {
        file.sink(record(n));
        await file.close();
        // each record is seen before the next write, so the rotation happens under a follower that has read up to it
        await expect.poll(() => seen.length).toBe(n - 1);
      }
    } finally {
      stop();
    }
    expect(readdirSync(dir)).toContain("requests.1.jsonl");
    expect(seen).toEqual(["req_2", "req_3", "req_4", "req_5", "req_6", "req_7"]);
  });

  it("is followed from where it was read, missing nothing written in between and no half-written line", async () => {
    const dir = tempDir();
    const seen: string[] = [];
    const half = JSON.stringify(record(2));
    writeFileSync(logFilePath(dir), `${JSON.stringify(record(1))}\n${half.slice(0, 20)}`);
    const { records, end } = await readRecords(dir);
    expect(records.map((r) => r.requestId)).toEqual(["req_1"]);
    appendFileSync(logFilePath(dir), `${half.slice(20)}\n${JSON.stringify(record(3))}\n`);
    const stop = followRecords(dir, end, (r) => seen.push(r.requestId), (e) => expect.fail(e.message));
    try {
      await expect.poll(() => seen.length, { message: "records written before following began" }).toBeGreaterThanOrEqual(2);
    } finally {
      stop();
    }
    expect(seen).toEqual(["req_2", "req_3"]);
  });
});

describe("gateway start → requests.jsonl → gateway logs / stats", () => {
  let upstream: FakeUpstream;
  let gateway: ReturnType<typeof spawnCli>;
  let url: string;
  let env: NodeJS.ProcessEnv;
  let stateDir: string;
  const followers: ReturnType<typeof spawnCli>[] = [];

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    stateDir = join(tempDir(), "state");
    env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_STATE_DIR: stateDir, GATEWAY_UPSTREAM: upstream.url, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY, GATEWAY_LOCAL_KEY: LOCAL_KEY });
    gateway = spawnCli(["start", "--port", "0", "--verbose"], env);
    [, url] = (await waitForOutput(gateway, /listening on (http:\/\/127\.0\.0\.1:\d+)/)) as unknown as [string, string];

    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: url, apiKey: LOCAL_KEY, maxRetries: 0 });
    for (let i = 0; i < 3; i++) await openai.chat.completions.create({ model: "gpt-fake", messages: [{ role: "user", content: "one two" }] });
    for await (const _ of await openai.chat.completions.create({ model: "gpt-fake", stream: true, messages: [{ role: "user", content: "a b c d" }] }));
    for (let i = 0; i < 2; i++) await anthropic.messages.create({ model: "claude-fake", max_tokens: 9, messages: [{ role: "user", content: "hello there" }] });
    for await (const _ of await anthropic.messages.create({ model: "claude-fake", max_tokens: 9, stream: true, messages: [{ role: "user", content: "x y" }] }));
    const wrongKey = new Anthropic({ baseURL: url, apiKey: "gw-not-the-local-key", maxRetries: 0 });
    await expect(wrongKey.messages.create({ model: "claude-fake", max_tokens: 9, messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({ status: 401 });
    // expect.poll is for tests; vi.waitFor retries the same way in a hook.
    await vi.waitFor(async () => expect((await readRecords(stateDir)).records.length, "8 logged requests").toBe(8), { timeout: 5_000 });
  });

  afterEach(() => {
    for (const child of followers.splice(0)) child.kill("SIGKILL");
  });

  afterAll(async () => {
    gateway.kill("SIGKILL");
    await upstream.close();
  });

  it("writes one private record per request, with user agent and usage, and no key or body", async () => {
    expect(mode(stateDir)).toBe(0o700);
    expect(mode(logFilePath(stateDir))).toBe(0o600);
    const text = readFileSync(logFilePath(stateDir), "utf8");
    for (const secret of [...TEST_SECRETS, LOCAL_KEY, "gw-not-the-local-key"]) expect(text).not.toContain(secret);
    for (const prompt of ["one two", "hello there", "a b c d"]) expect(text).not.toContain(prompt);
    const { records } = await readRecords(stateDir);
    expect(records[0]).toMatchObject({ method: "POST", path: "/v1/chat/completions", model: "gpt-fake", status: 200, inputTokens: 11, outputTokens: 3, cacheReadTokens: 4, outcome: "complete" });
    expect(records[0]!.userAgent).toMatch(/^OpenAI\/JS \d/);
    expect(records[6]).toMatchObject({ path: "/v1/messages", model: "claude-fake", inputTokens: 11, outputTokens: 3, cacheReadTokens: 4, cacheWriteTokens: 3 });
    expect(records[6]!.userAgent).toMatch(/^Anthropic\/JS \d/);
    expect(records[7]).toMatchObject({ path: "/v1/messages", status: 401, outcome: "local_error" });
    expect(records[7]!.model).toBeUndefined();
    // whether the client asked for a stream: said when it did, left out when it did not
    expect(records.map((r) => r.stream)).toEqual([undefined, undefined, undefined, true, undefined, undefined, true, undefined]);
  });

  it("--verbose prints headers with every credential redacted", () => {
    const { stdout } = gateway.output();
    expect(stdout).toContain("> authorization: [redacted]");
    expect(stdout).toMatch(/> user-agent: OpenAI\/JS \d/);
    expect(stdout).toContain("< content-type: text/event-stream");
    // failed requests stay on stdout with the rest, in order
    expect(stdout).toMatch(/⚠ POST \/v1\/messages - 401 \d+ms ttfb - \(wrong local key\)\n  > host: /);
    for (const secret of [LOCAL_KEY, "gw-not-the-local-key", FAKE_UPSTREAM_KEY]) expect(stdout).not.toContain(secret);
  });

  it("`logs -n 3 --json` prints the last three records as stored, durations to a tenth of a ms, with each one's cost", async () => {
    const result = await runCli(["logs", "-n", "3", "--json"], env);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as RequestRecord & { costUsd?: number | null });
    const stored = (await readRecords(stateDir)).records;
    const tenth = (ms: number | undefined) => (ms === undefined ? undefined : Math.round(ms * 10) / 10);
    // claude-fake is in no price table: unknown (null), never 0; the 401 reported no tokens, so it has no cost at all
    const costs = [null, null, undefined];
    expect(lines).toEqual(stored.slice(-3).map((r, i) => JSON.parse(JSON.stringify({ ...r, durationMs: tenth(r.durationMs), ttfbMs: tenth(r.ttfbMs), costUsd: costs[i] }))));
    expect(lines[0]!.durationMs).toBe(Math.round(lines[0]!.durationMs * 10) / 10);
  });

  it("`logs --json` prints every stored record unless -n says otherwise", async () => {
    const result = await runCli(["logs", "--json"], env);
    expect(result.stdout.trimEnd().split("\n")).toHaveLength(8);
    const table = await runCli(["logs"], env);
    expect(table.stdout.trimEnd().split("\n")).toHaveLength(9);
  });

  it("`logs` prints a table of recent requests, newest last", async () => {
    const result = await runCli(["logs", "-n", "2"], env);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    // Piped: every column, no colour; NOTE because the 401 has one. Today's times leave out the date.
    expect(lines[0]).toMatch(/^TIME\s+CLIENT\s+REQUEST\s+MODEL\s+STATUS\s+DURATION\s+TTFB\s+TOKENS\s+NOTE$/);
    expect(lines[1]).toMatch(/^\d\d:\d\d:\d\d  Anthropic\/JS\s+POST \/v1\/messages ~\s+claude-fake\s+200\s+\d+ms\s+\d+ms\s+11\/3$/);
    expect(lines[2]).toMatch(/^\d\d:\d\d:\d\d  Anthropic\/JS\s+POST \/v1\/messages\s+-\s+401\s+\d+ms\s+-\s+-\s+wrong local key$/);
  });

  it("`logs -f` prints new requests as they happen", async () => {
    const follower = spawnCli(["logs", "-f", "-n", "1"], env);
    followers.push(follower);
    await waitForOutput(follower, /401/);
    await fetch(`${url}/v1/chat/completions`, { method: "POST", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "followed-model", messages: [{ role: "user", content: "hi" }] }) });
    await waitForOutput(follower, /POST \/v1\/chat\/completions\s+followed-model\s+200/);
    expect(follower.output().stdout.trimEnd().split("\n")).toHaveLength(3);
  });

  it("`stats --json` adds up the known requests per model and per client", async () => {
    const result = await runCli(["stats", "--json", "--since", "1h"], env);
    expect(result.code).toBe(0);
    const stats = JSON.parse(result.stdout);
    const gpt = stats.models.find((m: { name: string }) => m.name === "gpt-fake");
    const claude = stats.models.find((m: { name: string }) => m.name === "claude-fake");
    const out = (prompt: string) => replyPieces(prompt).length;
    expect(gpt).toMatchObject({ requests: 4, errors: 0, inputTokens: 44, outputTokens: 3 * out("one two") + out("a b c d"), cacheReadTokens: 16, cacheWriteTokens: 0 });
    expect(claude).toMatchObject({ requests: 3, errors: 0, inputTokens: 33, outputTokens: 2 * out("hello there") + out("x y"), cacheReadTokens: 12, cacheWriteTokens: 9 });
    for (const group of [gpt, claude]) {
      expect(group.durationMs.p50).toBeGreaterThan(0);
      expect(group.durationMs.p95).toBeGreaterThanOrEqual(group.durationMs.p50);
      expect(group.ttfbMs.p95).toBeGreaterThanOrEqual(group.ttfbMs.p50);
    }
    const byClient = Object.fromEntries(stats.clients.map((c: { name: string; requests: number; errors: number }) => [c.name, [c.requests, c.errors]]));
    expect(byClient["Anthropic/JS"]).toEqual([4, 1]);
    expect(byClient["OpenAI/JS"]).toEqual([4, 0]);
    expect(stats.total.requests).toBe(stats.models.reduce((n: number, m: { requests: number }) => n + m.requests, 0));
  });

  it("`stats` prints a table per model and per client", async () => {
    const result = await runCli(["stats"], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\d+ requests since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d, 1 error\nTokens: [\d,]+ in, [\d,]+ out \(cache: \d+ read, 9 written\)\nEstimated cost: unknown, \d+ requests at an unknown price not included\n/);
    expect(result.stdout).toMatch(/\nMODEL\s+REQUESTS\s+ERRORS\s+TOKENS IN\s+TOKENS OUT\s+CACHE R\/W\s+COST\s+P50\s+P95\s+TTFB P50\s+TTFB P95\n/);
    expect(result.stdout).toMatch(/\nclaude-fake\s+3\s+0\s+33\s+9\s+12\/9\s+unknown\s+\d+ms\s+\d+ms\s+\d+ms\s+\d+ms\n/);
    expect(result.stdout).toMatch(/\nCLIENT\s+REQUESTS/);
  });

  it("rejects a --since it cannot read with exit 2, and says so when nothing is logged", async () => {
    const bad = await runCli(["stats", "--since", "yesterday-ish"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--since "yesterday-ish" is not a period or a date.');
    const empty = await runCli(["logs"], { ...env, GATEWAY_STATE_DIR: join(tempDir(), "none") });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe("");
    expect(empty.stderr).toMatch(/No requests logged yet \(.*requests\.jsonl\)/);
  });
});
