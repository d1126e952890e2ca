import OpenAI from "openai";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, runCli } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";
import { startStrictLiteLLM } from "./helpers/strict/litellm.js";

/** Issue 49, LiteLLM findings 10 and 11, against the strict LiteLLM fake. */

const opened = closeAfterEach();

describe("a Codex turn LiteLLM ends with data: [DONE] after response.completed (finding 10)", () => {
  it("is recorded complete when the client hangs up at response.completed, before [DONE] is relayed", async () => {
    let releaseDone!: () => void;
    const beforeDone = new Promise<void>((resolve) => (releaseDone = resolve));
    const team = opened(await startStrictLiteLLM({ hold: { before: "[DONE]", until: beforeDone } }));
    const gateway = opened(await startTestGateway(undefined, { file: { upstreams: { team: { kind: "litellm", url: team.url, key: "none" } } } }));
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const stream = await client.responses.create({ model: "gpt-4o-mini", input: "hi", stream: true });
    const seen: string[] = [];
    // Codex stops reading at response.completed, as the SDK's `break` does: the request is aborted there.
    for await (const event of stream) {
      seen.push(event.type);
      if (event.type === "response.completed") break;
    }
    expect(seen).toEqual(["response.created", "response.output_text.delta", "response.completed"]);
    await expect.poll(() => gateway.records.length).toBe(1);
    releaseDone();
    expect(gateway.records[0]).toMatchObject({ status: 200, outcome: "complete", inputTokens: 12, outputTokens: 5 });
  });

  it("a client that leaves before response.completed is still recorded as gone", async () => {
    const team = opened(await startStrictLiteLLM({ hold: { before: "response.completed", until: new Promise<void>(() => undefined) } }));
    const gateway = opened(await startTestGateway(undefined, { file: { upstreams: { team: { kind: "litellm", url: team.url, key: "none" } } } }));
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const stream = await client.responses.create({ model: "gpt-4o-mini", input: "hi", stream: true });
    for await (const event of stream) if (event.type === "response.created") break;
    await expect.poll(() => gateway.records.length).toBe(1);
    expect(gateway.records[0]).toMatchObject({ status: 200, outcome: "client_closed" });
  });
});

describe("gateway add accepts no key for a LiteLLM that needs none (finding 11)", () => {
  it("--no-key writes \"key\": \"none\", asks for nothing and sends no key", async () => {
    const team = opened(await startStrictLiteLLM());
    const dir = mkdtempSync(join(tmpdir(), "gateway-litellm-"));
    const added = await runCli(["add", team.url, "team", "--no-key"], cliEnv({ GATEWAY_CONFIG_DIR: dir }));
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain(`Found LiteLLM at ${team.url}.`);
    expect(added.stderr).toContain("It lists 3 models: claude-sonnet-4-5, gpt-4o-mini, team-small.");
    expect(JSON.parse(readFileSync(join(dir, "config.json"), "utf8"))).toEqual({ upstreams: { team: { kind: "litellm", url: team.url, key: "none" } } });
    expect(team.received.every((request) => request.headers.authorization === undefined)).toBe(true);
  });

  it("without --no-key and without a key, the usage error names --no-key", async () => {
    const team = opened(await startStrictLiteLLM());
    const added = await runCli(["add", team.url, "team", "--stdin"], cliEnv({ GATEWAY_CONFIG_DIR: mkdtempSync(join(tmpdir(), "gateway-litellm-")), DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS }), "");
    expect(added.code).toBe(2);
    expect(added.stderr).toContain("for a server that needs none, add it with --no-key");
  });
});
