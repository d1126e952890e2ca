import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { scripted } from "./helpers/chat-script.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { startStrictFake, STRICT_KINDS } from "./helpers/strict/index.js";
import { startTestGateway, type TestGateway } from "./helpers/gateway.js";
import { rawRequest } from "./helpers/http.js";
import type { FakeUpstream } from "./helpers/fake-upstream.js";

/**
 * A request Claude Code 2.1.197 really sent (recorded through the gateway; long texts and the tool list trimmed),
 * replayed through a gateway whose upstream speaks only chat: what reaches that upstream, field by field against
 * SPEC 10 rule 1, with nothing Anthropic-only in it.
 */

const golden = JSON.parse(readFileSync(new URL("./fixtures/claude-code-2.1.197-messages.json", import.meta.url), "utf8")) as {
  headers: Record<string, string>;
  body: { system: { text: string }[]; tools: { name: string; input_schema: unknown }[]; messages: { content: { text: string }[] }[] };
};

const opened = closeAfterEach();
let upstream: FakeUpstream;
let gateway: TestGateway;

describe("Claude Code 2.1.197's request on a chat-only upstream", () => {
  it("arrives with its meaning and without anything only Anthropic understands", async () => {
    upstream = opened(await startStrictFake(STRICT_KINDS.generic, { script: scripted({ text: "ok" }) }));
    gateway = opened(await startTestGateway(undefined, { file: { upstream: "local", upstreams: { local: { url: upstream.url, formats: ["chat"], key: "none", maxOutputTokens: 16384 } } } }));
    const res = await rawRequest(gateway.url, {
      method: "POST",
      path: "/v1/messages?beta=true",
      headers: { ...golden.headers, "x-api-key": "gw-local-test-key-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
      body: JSON.stringify(golden.body),
    });
    expect(res.status).toBe(200);
    const sent = upstream.last();
    expect(sent.url).toBe("/v1/chat/completions");
    // Headers of the client's format do not travel; the tool's own user agent does.
    for (const name of ["anthropic-version", "anthropic-beta", "x-api-key", "authorization"]) expect(sent.headers[name], name).toBeUndefined();
    expect(sent.headers["user-agent"]).toBe("claude-cli/2.1.197 (external, sdk-cli)");
    const body = sent.body as Record<string, unknown> & { messages: { role: string; content: unknown }[]; tools: { type: string; function: { name: string; parameters: Record<string, unknown> } }[] };
    // Top-level fields: the whitelist, and nothing else.
    expect(Object.keys(body).sort()).toEqual(["max_tokens", "messages", "model", "stream", "stream_options", "tools"]);
    expect(body).toMatchObject({ model: "claude-sonnet-4-5", max_tokens: 16384, stream: true, stream_options: { include_usage: true } });
    // One system message first: the blocks joined, the per-turn billing line left out (it defeats prefix caches).
    expect(body.messages[0]!.role).toBe("system");
    const system = body.messages[0]!.content as string;
    expect(system.startsWith("You are a Claude agent, built on Anthropic's Claude Agent SDK.\n\n")).toBe(true);
    expect(system).toContain(golden.body.system[2]!.text.trim().slice(0, 60));
    expect(system).not.toContain("x-anthropic-billing-header");
    // The user turn keeps every text block, in order.
    expect(body.messages.slice(1).map((m) => m.role)).toEqual(["user"]);
    const userText = JSON.stringify(body.messages[1]!.content);
    for (const block of golden.body.messages[0]!.content) expect(userText).toContain(JSON.stringify(block.text).slice(1, 40));
    // Tools: functions with their schemas, no $schema.
    expect(body.tools.map((tool) => tool.function.name)).toEqual(golden.body.tools.map((tool) => tool.name));
    expect(body.tools.every((tool) => tool.type === "function" && tool.function.parameters.type === "object" && !("$schema" in tool.function.parameters))).toBe(true);
    expect(JSON.stringify(body)).not.toMatch(/cache_control|context_management|clear_thinking|device_id|"metadata"|"thinking"|budget_tokens/);
    expect(body).not.toHaveProperty("reasoning_effort");
  });
});
