import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRecords } from "../src/request-log/read-log.js";
import { cliEnv, runCli, spawnCli, waitForOutput } from "./helpers/cli.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, tempConfigDir } from "./helpers/gateway.js";
import { chatHeaders, messagesHeaders, rawRequest } from "./helpers/http.js";

/**
 * Issue 37, item 13: a request the gateway refuses itself after reading its body (400 for a field, 415 for its
 * content type) keeps that body in its capture, and its record names the model the body (or the Gemini path) named,
 * even when another field was wrong (SPEC 6, Tokens: the model is recorded wherever the request names one).
 */

let upstream: FakeUpstream;
let gateway: ReturnType<typeof spawnCli>;
let url: string;
let port: string;
let env: NodeJS.ProcessEnv;
let stateDir: string;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  stateDir = join(mkdtempSync(join(tmpdir(), "gateway-refused-")), "state");
  env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_STATE_DIR: stateDir, GATEWAY_UPSTREAM: upstream.url, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY, GATEWAY_LOCAL_KEY: LOCAL_KEY });
  gateway = spawnCli(["start", "--port", "0", "--capture", "errors", "--quiet"], env);
  [, url, port] = (await waitForOutput(gateway, /listening on (http:\/\/127\.0\.0\.1:(\d+))/)) as unknown as [string, string, string];
});

afterAll(async () => {
  gateway.kill("SIGKILL");
  await upstream.close();
});

/** Sends a request the gateway refuses; returns its request id, its status and what `logs --show` prints of it. */
async function refused(path: string, headers: Record<string, string>, body: string) {
  const res = await rawRequest(url, { method: "POST", path, headers, body });
  const id = res.headers["x-request-id"] as string;
  const show = await runCli(["logs", "--show", id, "-p", port], env);
  expect(show.code, show.stderr).toBe(0);
  return { id, status: res.status, shown: show.stdout };
}

async function recordOf(id: string) {
  let found;
  await expect.poll(async () => (found = (await readRecords(stateDir)).records.find((r) => r.requestId === id)), { timeout: 5_000 }).toBeDefined();
  return found!;
}

describe("a request the gateway refused keeps its body and its model (item 13)", () => {
  it("a chat request without messages: the capture shows its body, the record its model", async () => {
    const { id, status, shown } = await refused("/v1/chat/completions", chatHeaders(LOCAL_KEY), JSON.stringify({ model: "gpt-4o", temperature: 0.2 }));
    expect(status).toBe(400);
    expect(shown).toContain('> POST /v1/chat/completions');
    expect(shown).toContain('"model": "gpt-4o",\n  "temperature": 0.2');
    expect(shown).toContain('Missing required field \\"messages\\"');
    expect(await recordOf(id)).toMatchObject({ status: 400, model: "gpt-4o", errorCode: "missing_required_field" });
  });

  it("a messages request whose max_tokens is 0, and one sent as text/plain", async () => {
    const body = JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 0, messages: [{ role: "user", content: "hi" }] });
    const invalid = await refused("/anthropic/v1/messages", messagesHeaders(LOCAL_KEY), body);
    expect(invalid.status).toBe(400);
    expect(invalid.shown).toContain('"max_tokens": 0');
    expect(await recordOf(invalid.id)).toMatchObject({ model: "claude-sonnet-4-5", errorCode: "invalid_type" });
    const plain = await refused("/anthropic/v1/messages", { ...messagesHeaders(LOCAL_KEY), "content-type": "text/plain" }, body);
    expect(plain.status).toBe(415);
    expect(plain.shown).toContain('"model": "claude-sonnet-4-5"');
    expect(await recordOf(plain.id)).toMatchObject({ status: 415, model: "claude-sonnet-4-5" });
  });

  it("a Gemini request without contents names its model in the path; a model of the wrong type is no model", async () => {
    const gemini = await refused("/gemini/v1beta/models/gemini-2.5-flash:generateContent", { "x-goog-api-key": LOCAL_KEY, "content-type": "application/json" }, JSON.stringify({ generationConfig: {} }));
    expect(gemini.status).toBe(400);
    expect(gemini.shown).toContain('"generationConfig": {}');
    expect(await recordOf(gemini.id)).toMatchObject({ model: "gemini-2.5-flash" });
    const numeric = await refused("/v1/chat/completions", chatHeaders(LOCAL_KEY), JSON.stringify({ model: 4, messages: [] }));
    expect(numeric.shown).toContain('"model": 4');
    expect((await recordOf(numeric.id)).model).toBeUndefined();
  });
});
