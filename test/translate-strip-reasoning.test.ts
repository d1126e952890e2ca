import { describe, expect, it } from "vitest";
import { createReasoningSeal } from "../src/translate/reasoning-seal.js";
import { stripGatewayReasoning } from "../src/translate/strip-gateway-reasoning.js";
import { testSeal } from "./helpers/translate.js";

/**
 * What a native upstream is sent when the conversation holds reasoning the gateway made on a translated route (SPEC
 * 10 rule 4; research table E row 8): none of the gateway's signatures, everything else as it was.
 */

const bytes = (body: unknown) => Buffer.from(JSON.stringify(body));
const ours = (text: string) => ({ type: "thinking", thinking: text, signature: testSeal.sign(text, "reasoning_content") });
/** A block signed by another install's secret (the config directory made anew): still the gateway's format. */
const otherInstall = (text: string) => ({ type: "thinking", thinking: text, signature: createReasoningSeal(Buffer.from("another-secret")).sign(text, "reasoning") });
const anthropics = { type: "thinking", thinking: "Anthropic's own.", signature: "EqQBCkgIARABGAIiQL8fSA0Nw+real/base64==" };
const redacted = { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP" };

describe("stripGatewayReasoning", () => {
  it("removes the gateway's thinking blocks, this install's and another's, and keeps Anthropic's and redacted ones where they were", () => {
    const body = {
      model: "claude-sonnet-4-5",
      messages: [
        { role: "user", content: "list files" },
        { role: "assistant", content: [ours("Plan: ls."), { type: "text", text: "Running ls." }, { type: "tool_use", id: "call_1", name: "Bash", input: { command: "ls" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "a.txt" }] },
        { role: "assistant", content: [anthropics, redacted, { type: "text", text: "One file." }] },
        { role: "user", content: "and now?" },
        { role: "assistant", content: [otherInstall("Older."), { type: "text", text: "Still one." }] },
        { role: "user", content: "thanks" },
      ],
    };
    const stripped = stripGatewayReasoning(bytes(body), testSeal);
    const expected = structuredClone(body);
    expected.messages[1]!.content = (expected.messages[1]!.content as unknown[]).slice(1) as never;
    expected.messages[5]!.content = (expected.messages[5]!.content as unknown[]).slice(1) as never;
    expect(JSON.stringify(stripped)).toBe(JSON.stringify(expected));
  });

  it("drops a turn that held nothing but the gateway's reasoning, since Anthropic refuses an empty content", () => {
    const body = { messages: [{ role: "user", content: "2+2?" }, { role: "assistant", content: [ours("It is 4.")] }, { role: "user", content: "sure?" }] };
    expect(stripGatewayReasoning(bytes(body), testSeal)).toEqual({ messages: [body.messages[0], body.messages[2]] });
  });

  it("turns thinking off for an open tool loop whose assistant turn lost its thinking (Anthropic: 400 expected thinking), and only then", () => {
    const loop = (assistant: unknown[], thinking: unknown = { type: "enabled", budget_tokens: 2048 }) => ({
      thinking,
      messages: [
        { role: "user", content: "list files" },
        { role: "assistant", content: assistant },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "a.txt" }] },
      ],
    });
    const call = { type: "tool_use", id: "call_1", name: "Bash", input: { command: "ls" } };
    expect(stripGatewayReasoning(bytes(loop([ours("Plan: ls."), call])), testSeal)).not.toHaveProperty("thinking");
    expect(stripGatewayReasoning(bytes(loop([ours("Plan: ls."), call], { type: "adaptive" })), testSeal)).not.toHaveProperty("thinking");
    // an earlier loop lost its thinking, the open one kept Anthropic's: thinking stays on
    const later = loop([anthropics, call]);
    later.messages.unshift({ role: "user", content: "hi" }, { role: "assistant", content: [ours("Greet."), { type: "tool_use", id: "c0", name: "Bash", input: {} }] }, { role: "user", content: [{ type: "tool_result", tool_use_id: "c0", content: "" }] });
    expect(stripGatewayReasoning(bytes(later), testSeal)).toHaveProperty("thinking", { type: "enabled", budget_tokens: 2048 });
    // a last turn without a tool call needs no thinking to go on
    expect(stripGatewayReasoning(bytes(loop([ours("Plan."), { type: "text", text: "Done." }])), testSeal)).toHaveProperty("thinking");
  });

  it("removes the reasoning items the gateway sealed for Codex, and keeps OpenAI's own encrypted reasoning", () => {
    const sealed = { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Plan." }], encrypted_content: testSeal.seal("Plan.", "reasoning_content") };
    const openai = { type: "reasoning", id: "rs_2", summary: [], encrypted_content: "gAAAAABoXreal-encrypted-reasoning" };
    const body = { model: "gpt-5", input: [{ role: "user", content: "hi" }, sealed, { type: "message", role: "assistant", content: [{ type: "output_text", text: "Hello." }] }, openai], store: false };
    expect(stripGatewayReasoning(bytes(body), testSeal)).toEqual({ ...body, input: [body.input[0], body.input[2], openai] });
  });

  it("gives Google Gemini CLI's stand-in for the gateway's thoughtSignature on a call, drops it elsewhere, and keeps Google's own", () => {
    const body = {
      contents: [
        { role: "user", parts: [{ text: "go" }] },
        { role: "model", parts: [{ text: "Reading.", thoughtSignature: testSeal.seal("x", "reasoning") }, { functionCall: { name: "read", args: {} }, thoughtSignature: testSeal.seal("Plan.", "reasoning") }] },
        { role: "model", parts: [{ functionCall: { name: "read", args: {} }, thoughtSignature: "CiQBjz1rX2google-own" }] },
      ],
    };
    expect(stripGatewayReasoning(bytes(body), testSeal)).toEqual({
      contents: [
        body.contents[0],
        { role: "model", parts: [{ text: "Reading." }, { functionCall: { name: "read", args: {} }, thoughtSignature: "skip_thought_signature_validator" }] },
        body.contents[2],
      ],
    });
  });

  it("leaves the bytes alone (undefined) when there is nothing of the gateway's: no mark, a mark in plain text, or a body that is not JSON", () => {
    expect(stripGatewayReasoning(bytes({ messages: [{ role: "assistant", content: [anthropics] }] }), testSeal)).toBeUndefined();
    expect(stripGatewayReasoning(bytes({ messages: [{ role: "user", content: [{ type: "text", text: "gw1.rc.abc is a string" }] }] }), testSeal)).toBeUndefined();
    expect(stripGatewayReasoning(Buffer.from('{"messages": ["gw1.x", null, {"content": [null]}]'), testSeal)).toBeUndefined();
    expect(stripGatewayReasoning(bytes({ messages: [null, { role: "user", content: [null, "gw1.x"] }], input: [null], contents: [null, { parts: [null, { text: "gw1.x" }] }] }), testSeal)).toBeUndefined();
    expect(stripGatewayReasoning(undefined, testSeal)).toBeUndefined();
  });
});
