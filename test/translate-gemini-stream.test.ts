import { ApiError, GoogleGenAI, type GenerateContentResponse } from "@google/genai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { encodeEvents } from "../src/sse/sse.js";
import { geminiClient } from "../src/formats/gemini/translators.js";
import type { HubReply, HubUsage, Json } from "../src/translate/hub.js";
import type { GeminiHints } from "../src/formats/gemini/gemini-request.js";
import type { ClientEvent, HubStreamItem } from "../src/translate/types.js";
import { checkedStream, deltaItem, testContext, testSeal, usageItem } from "./helpers/translate.js";

/** The hub stream as `streamGenerateContent?alt=sse` events (streamFromHub), for every upstream shape of research B2. */

/** The events each push produced, and what finish() produced, so tests see when each event leaves. */
function run(items: HubStreamItem[], hints: GeminiHints = {}) {
  const stream = checkedStream(geminiClient, hints, testContext());
  const opening = stream.start();
  const pushes = items.map((item) => stream.push(item));
  const end = stream.finish();
  return { opening, pushes, end, all: [...opening, ...pushes.flat(), ...end] };
}

const chunk = (...parts: Json[]): ClientEvent => ({ data: { candidates: [{ content: { role: "model", parts }, index: 0 }], modelVersion: "client-model", responseId: "1" } });
const last = (parts: Json[], usageMetadata: Json, finishReason = "STOP"): ClientEvent => ({
  data: { candidates: [{ content: { role: "model", parts }, finishReason, index: 0 }], usageMetadata, modelVersion: "client-model", responseId: "1" },
});
const fc = (id: string, name: string, args: Json) => ({ functionCall: { id, name, args } });
const usage: HubUsage = { prompt_tokens: 50, completion_tokens: 8, total_tokens: 58 };
const usageMetadata = { promptTokenCount: 50, candidatesTokenCount: 8, totalTokenCount: 58 };
const noUsage = { promptTokenCount: 0, candidatesTokenCount: 0, totalTokenCount: 0 };
type Piece = { index?: number; id?: string; name?: string; args?: string | Json };
const tools = (...pieces: Piece[]) =>
  deltaItem({ tool_calls: pieces.map(({ index, id, name, args }) => ({ ...(index !== undefined ? { index } : {}), ...(id ? { id } : {}), function: { ...(name ? { name } : {}), ...(args !== undefined ? { arguments: args } : {}) } })) });
const finishItem = (reason: string) => deltaItem({}, reason);

describe("text", () => {
  it("each piece leaves as it arrives; the last event carries finishReason and the usage that came after the finish chunk", () => {
    const { opening, pushes, end } = run([deltaItem({ role: "assistant", content: "" }), deltaItem({ content: "Hel" }), deltaItem({ content: "lo" }), finishItem("stop"), usageItem(usage)]);
    expect(opening).toEqual([]);
    expect(pushes).toEqual([[], [chunk({ text: "Hel" })], [chunk({ text: "lo" })], [], []]);
    expect(end).toEqual([last([], usageMetadata)]);
  });

  it("a stream that ends without a finish reason or [DONE] still ends with STOP; the request's estimate stands in for missing usage", () => {
    const stream = checkedStream(geminiClient, { inputTokens: 77 }, testContext());
    expect(stream.push(deltaItem({ content: "cut" }))).toEqual([chunk({ text: "cut" })]);
    expect(stream.finish()).toEqual([last([], { promptTokenCount: 77, candidatesTokenCount: 0, totalTokenCount: 77 })]);
    expect(stream.finish()).toEqual([]);
    expect(stream.keepAlive()).toEqual([]);
  });

  it("an empty upstream stream still ends by the grammar", () => {
    expect(run([]).all).toEqual([last([], noUsage)]);
  });
});

describe("tool calls, whatever shape the upstream streams them in (research B2)", () => {
  it("OpenAI/vLLM: id and name first, argument pieces by index; a call leaves whole when the next one opens", () => {
    const { pushes, end } = run([
      tools({ index: 0, id: "call_a", name: "read_file", args: "" }),
      tools({ index: 0, args: '{"path":' }),
      tools({ index: 0, args: '"/a"}' }),
      tools({ index: 1, id: "call_b", name: "read_file", args: "" }),
      tools({ index: 1, args: '{"path":"/b"}' }),
      finishItem("tool_calls"),
      usageItem(usage),
    ]);
    expect(pushes).toEqual([[], [], [], [chunk(fc("call_a", "read_file", { path: "/a" }))], [], [], []]);
    expect(end).toEqual([last([fc("call_b", "read_file", { path: "/b" })], usageMetadata)]);
  });

  it("each call part carries the reasoning that came before it, sealed as its thoughtSignature", () => {
    const { all } = run([
      deltaItem({ reasoning_content: "List " }),
      deltaItem({ reasoning_content: "first." }),
      tools({ index: 0, id: "call_a", name: "run_shell_command", args: '{"command":"ls"}' }),
      deltaItem({ reasoning_content: "Then read." }),
      tools({ index: 1, id: "call_b", name: "read_file", args: '{"path":"/a"}' }),
      tools({ index: 2, id: "call_c", name: "read_file", args: '{"path":"/b"}' }),
      finishItem("tool_calls"),
    ]);
    const callParts = all.flatMap((event) => ((event.data as { candidates: { content: { parts: Json[] } }[] }).candidates[0]!.content.parts)).filter((part) => part.functionCall);
    expect(callParts.map((part) => part.thoughtSignature)).toEqual([testSeal.seal("List first.", "reasoning_content"), testSeal.seal("Then read.", "reasoning_content"), undefined]);
  });

  it("Ollama/Gemini: the whole call in one chunk, with finish_reason stop (STOP with the call)", () => {
    const { all } = run([tools({ index: 0, id: "call_1", name: "run_shell_command", args: '{"command":"ls"}' }), finishItem("stop")]);
    expect(all).toEqual([last([fc("call_1", "run_shell_command", { command: "ls" })], noUsage)]);
  });

  it("LiteLLM/SGLang: the id repeated on every piece is one call", () => {
    const { all } = run([tools({ index: 0, id: "x", name: "grep", args: '{"q":' }), tools({ index: 0, id: "x", args: '"a"}' }), finishItem("tool_calls")]);
    expect(all).toEqual([last([fc("x", "grep", { q: "a" })], noUsage)]);
  });

  it("lmdeploy: index 0 reused with a new id is a second call", () => {
    const { all } = run([tools({ index: 0, id: "p", name: "a", args: '{"n":1}' }), tools({ index: 0, id: "q", name: "b", args: '{"n":2}' }), finishItem("tool_calls")]);
    expect(all).toEqual([chunk(fc("p", "a", { n: 1 })), last([fc("q", "b", { n: 2 })], noUsage)]);
  });

  it("vLLM without ids: two calls to the same tool get distinct ids (table E row 22)", () => {
    const { all } = run([tools({ index: 0, name: "read_file", args: '{"p":"a"}' }), tools({ index: 1, name: "read_file", args: '{"p":"b"}' }), finishItem("tool_calls")]);
    expect(all).toEqual([chunk(fc("call_1", "read_file", { p: "a" })), last([fc("call_2", "read_file", { p: "b" })], noUsage)]);
  });

  it("the same id at two indexes (LocalAI), a replay of the whole call (QC), arguments as an object: one call each", () => {
    const { all } = run([
      tools({ index: 0, id: "k", name: "f", args: { a: 1 } }),
      tools({ index: 1, id: "k", name: "f", args: '{"a":1}' }),
      tools({ index: 0, id: "k", name: "f", args: '{"a":1}' }),
      finishItem("tool_calls"),
    ]);
    expect(all).toEqual([last([fc("k", "f", { a: 1 })], noUsage)]);
  });

  it("a call whose arguments never parse waits for the end, is repaired or given as it came under INVALID_JSON (item 2), and the calls after it keep their place", () => {
    const { pushes, end } = run([tools({ index: 0, id: "a", name: "f", args: '{"x": 1,' }), tools({ index: 1, id: "b", name: "g", args: "{'y': 2}" }), tools({ index: 2, id: "c", name: "h", args: '{"z":3}' }), deltaItem({ content: "ok" })]);
    expect(pushes).toEqual([[], [], [], [chunk({ text: "ok" })]]);
    expect(end).toEqual([last([fc("a", "f", { x: 1 }), fc("b", "g", { INVALID_JSON: "{'y': 2}" }), fc("c", "h", { z: 3 })], noUsage)]);
  });

  it("a reply cut by the output limit leaves out the call it cut, never sent, and ends with MAX_TOKENS (item 8)", () => {
    const { all } = run([tools({ index: 0, id: "a", name: "f", args: '{"x":1}' }), tools({ index: 1, id: "b", name: "g", args: '{"y": 2' }), finishItem("length")]);
    expect(all).toEqual([chunk(fc("a", "f", { x: 1 })), last([], noUsage, "MAX_TOKENS")]);
  });

  it("text after a call sends the finished call first, keeping the order", () => {
    const { pushes } = run([tools({ index: 0, id: "c", name: "f", args: '{"x":1}' }), deltaItem({ content: "done" })]);
    expect(pushes).toEqual([[], [chunk(fc("c", "f", { x: 1 }), { text: "done" })]]);
  });

  it("finish_reason tool_calls with no usable call ends with STOP and the text", () => {
    const { all } = run([deltaItem({ content: "Nothing to run." }), tools({ index: 0, args: '{"x":1}' }), finishItem("tool_calls")]);
    expect(all).toEqual([chunk({ text: "Nothing to run." }), last([], noUsage)]);
  });
});

describe("reasoning and JSON", () => {
  const script = [deltaItem({ reasoning_content: "Think" }), deltaItem({ reasoning_content: "ing." }), deltaItem({ content: "Answer" }), finishItem("stop")];

  it("thought parts stream as they arrive when the client asked for thoughts, and not otherwise", () => {
    expect(run(script, { includeThoughts: true }).all).toEqual([chunk({ text: "Think", thought: true }), chunk({ text: "ing.", thought: true }), chunk({ text: "Answer" }), last([], noUsage)]);
    expect(run(script).all).toEqual([chunk({ text: "Answer" }), last([], noUsage)]);
  });

  it("a reasoning-only answer ends with the reasoning as text, so Gemini CLI does not reject it as empty", () => {
    expect(run([deltaItem({ reasoning: "It is 4." }), finishItem("stop")]).all).toEqual([last([{ text: "It is 4." }], noUsage)]);
  });

  it("JSON text is held and sent once, out of its fence, with the finish", () => {
    const { pushes, end } = run([deltaItem({ content: "```json\n{\"a\"" }), deltaItem({ content: ":1}\n```" }), finishItem("stop"), usageItem(usage)], { jsonText: true });
    expect(pushes).toEqual([[], [], [], []]);
    expect(end).toEqual([last([{ text: '{"a":1}' }], usageMetadata)]);
  });
});

describe("errors", () => {
  it("fail() sends Gemini's error envelope with Google's status name, and nothing after it", () => {
    const names = [400, 401, 403, 404, 429, 500, 502, 503, 504].map((status) => {
      const stream = checkedStream(geminiClient, {}, testContext());
      const [event, ...rest] = stream.fail({ status, type: "api_error", message: "upstream broke", param: null, code: null });
      expect(rest).toEqual([]);
      expect(stream.push(deltaItem({ content: "late" }))).toEqual([]);
      expect(stream.finish()).toEqual([]);
      return (event!.data as { error: { status: string } }).error.status;
    });
    expect(names).toEqual(["INVALID_ARGUMENT", "UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND", "RESOURCE_EXHAUSTED", "INTERNAL", "UNAVAILABLE", "UNAVAILABLE", "DEADLINE_EXCEEDED"]);
  });

  it("an error inside the upstream stream ends the client's stream with one error event", () => {
    const { pushes, end } = run([deltaItem({ content: "Hi" }), { type: "error", error: { status: 502, type: "api_error", message: "The upstream went away.", param: null, code: "upstream_error" } }, deltaItem({ content: "more" })]);
    expect(pushes).toEqual([[chunk({ text: "Hi" })], [{ data: { error: { code: 502, message: "The upstream went away.", status: "UNAVAILABLE" } } }], []]);
    expect(end).toEqual([]);
  });
});

/** The events as bytes on the wire, read back by the SDK's own stream reader (what Gemini CLI iterates). */
async function throughSdk(events: ClientEvent[]): Promise<GenerateContentResponse[]> {
  const fetch = async () => new Response(encodeEvents(events), { headers: { "content-type": "text/event-stream" } });
  const ai = new GoogleGenAI({ apiKey: "test-key", httpOptions: { fetch } });
  const chunks: GenerateContentResponse[] = [];
  for await (const response of await ai.models.generateContentStream({ model: "client-model", contents: "hi" })) chunks.push(response);
  return chunks;
}

/**
 * Gemini CLI's stream check (geminiChat.ts `processStreamResponse`): a turn without a function call needs a finish
 * reason other than MALFORMED_FUNCTION_CALL and visible (non-thought, non-blank) text, or the CLI retries it.
 */
function geminiCliAccepts(chunks: GenerateContentResponse[]): boolean {
  const parts = chunks.flatMap((response) => response.candidates?.[0]?.content?.parts ?? []);
  if (parts.some((part) => part.functionCall)) return true;
  const finishReason = chunks.flatMap((response) => response.candidates ?? []).filter((candidate) => candidate.finishReason).at(-1)?.finishReason;
  const text = parts.filter((part) => part.text && !part.thought).map((part) => part.text).join("").trim();
  return finishReason !== undefined && finishReason !== "MALFORMED_FUNCTION_CALL" && text !== "";
}

describe("the @google/genai SDK accepts the streams", () => {
  // The SDK's `.text` getter warns on a console when a chunk also holds function calls; it is the expected shape.
  beforeEach(() => void vi.spyOn(console, "warn").mockImplementation(() => undefined));
  afterEach(() => void vi.restoreAllMocks());

  const hints = { includeThoughts: true };
  const script = [
    deltaItem({ role: "assistant", reasoning_content: "Need " }),
    deltaItem({ reasoning_content: "both files." }),
    deltaItem({ content: "Reading " }),
    deltaItem({ content: "them." }),
    tools({ index: 0, id: "call_a", name: "read_file", args: "" }),
    tools({ index: 0, args: '{"file_path":"/a"}' }),
    tools({ index: 1, id: "call_b", name: "read_file", args: '{"file_path":' }),
    tools({ index: 1, args: '"/b"}' }),
    finishItem("stop"),
    usageItem({ prompt_tokens: 20, completion_tokens: 9, total_tokens: 29, completion_tokens_details: { reasoning_tokens: 3 } }),
  ];
  const whole: HubReply = {
    id: "chatcmpl-1",
    model: "upstream-model",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: "Reading them.",
          reasoning_content: "Need both files.",
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "read_file", arguments: '{"file_path":"/a"}' } },
            { id: "call_b", type: "function", function: { name: "read_file", arguments: '{"file_path":"/b"}' } },
          ],
        },
        finish_reason: "stop",
      },
    ],
    usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29, completion_tokens_details: { reasoning_tokens: 3 } },
  };

  it("accumulated, the stream says what the non-stream reply of the same answer says, and passes Gemini CLI's checks", async () => {
    const chunks = await throughSdk(run(script, hints).all);
    const reply = geminiClient.replyFromHub(whole, hints, testContext()) as { candidates: { content: { parts: Json[] }; finishReason: string }[]; usageMetadata: Json };
    const parts = reply.candidates[0]!.content.parts;
    const partsOf = (response: GenerateContentResponse) => response.candidates?.[0]?.content?.parts ?? [];
    const thoughts = chunks.flatMap(partsOf).filter((part) => part.thought).map((part) => part.text).join("");
    expect(thoughts).toBe(parts.filter((part) => part.thought).map((part) => part.text).join(""));
    expect(chunks.map((response) => response.text ?? "").join("")).toBe("Reading them.");
    expect(chunks.flatMap((response) => response.functionCalls ?? [])).toEqual(parts.filter((part) => part.functionCall).map((part) => part.functionCall));
    const final = chunks.at(-1)!;
    expect(final.candidates?.[0]?.finishReason).toBe(reply.candidates[0]!.finishReason);
    expect(final.usageMetadata).toEqual(reply.usageMetadata);
    expect(final.usageMetadata).toEqual({ promptTokenCount: 20, candidatesTokenCount: 6, thoughtsTokenCount: 3, totalTokenCount: 29 });
    expect(chunks.flatMap((response) => response.functionCalls ?? []).every((call) => call.id)).toBe(true);
    expect(geminiCliAccepts(chunks)).toBe(true);
  });

  it("plain text, and a stream cut off without a finish reason, pass Gemini CLI's check", async () => {
    expect(geminiCliAccepts(await throughSdk(run([deltaItem({ content: "Hi" }), finishItem("stop")]).all))).toBe(true);
    expect(geminiCliAccepts(await throughSdk(run([deltaItem({ content: "Hi" })]).all))).toBe(true);
  });

  it("a reasoning-only stream still gives the SDK visible text and a finish reason", async () => {
    const chunks = await throughSdk(run([deltaItem({ reasoning_content: "Just 4." }), finishItem("stop")], hints).all);
    expect(chunks.map((response) => response.text ?? "").join("").trim()).toBe("Just 4.");
    expect(geminiCliAccepts(chunks)).toBe(true);
  });

  it("the error event reaches the SDK as an ApiError with the status, after the text that came before it", async () => {
    const stream = checkedStream(geminiClient, {}, testContext());
    const events = [...stream.push(deltaItem({ content: "partial" })), ...stream.fail({ status: 504, type: "timeout_error", message: "The upstream timed out.", param: null, code: null })];
    const seen: string[] = [];
    const fetch = async () => new Response(encodeEvents(events), { headers: { "content-type": "text/event-stream" } });
    const ai = new GoogleGenAI({ apiKey: "test-key", httpOptions: { fetch } });
    const failure = await (async () => {
      for await (const response of await ai.models.generateContentStream({ model: "client-model", contents: "hi" })) seen.push(response.text ?? "");
    })().catch((error: unknown) => error);
    expect(seen).toEqual(["partial"]);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(504);
    expect((failure as ApiError).message).toContain("DEADLINE_EXCEEDED");
  });
});
