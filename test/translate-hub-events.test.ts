import { describe, expect, it } from "vitest";
import { createHubEventReader, reasoningOf, type HubEvent } from "../src/translate/hub-events.js";
import { readHubReply } from "../src/translate/hub-reply.js";
import { createThinkSplitter, splitThinkTags } from "../src/translate/think-tags.js";
import { deltaItem, hubReply, sequentialIds } from "./helpers/translate.js";

/** How every client format reads an upstream's reasoning (research B1 "reasoning fields read") before it builds its own events. */

/** Reads content pieces through one reader, its end included, and joins consecutive events of a kind. */
function read(pieces: string[]): { reasoning: string; text: string } {
  const reader = createHubEventReader();
  const events: HubEvent[] = [...pieces.flatMap((content) => reader.push(deltaItem({ content }))), ...reader.end()];
  const joined = (type: "reasoning" | "text") => events.map((event) => (event.type === type ? event.text : "")).join("");
  return { reasoning: joined("reasoning"), text: joined("text") };
}

describe("<think> tags at the start of content (Qwen3, DeepSeek-R1 behind a server without a reasoning parser)", () => {
  const answer = "<think>\nThe user wants 2+2.\n</think>\n\nIt is 4.";

  it("reads the tagged part as reasoning and the rest, without its leading blank lines, as text", () => {
    expect(read([answer])).toEqual({ reasoning: "\nThe user wants 2+2.\n", text: "It is 4." });
    expect(splitThinkTags(answer)).toEqual([
      { kind: "reasoning", text: "\nThe user wants 2+2.\n" },
      { kind: "text", text: "It is 4." },
    ]);
  });

  it("gives the same reading for a stream cut at every offset and fed one character at a time", () => {
    for (let cut = 0; cut <= answer.length; cut++) expect(read([answer.slice(0, cut), answer.slice(cut)]), `cut at ${cut}`).toEqual(read([answer]));
    expect(read([...answer])).toEqual(read([answer]));
  });

  it("holds back only what could still be a tag: text and reasoning leave as they come", () => {
    const splitter = createThinkSplitter();
    expect(splitter.push("<thi")).toEqual([]);
    expect(splitter.push("nk>Step one")).toEqual([{ kind: "reasoning", text: "Step one" }]);
    expect(splitter.push(" then two</th")).toEqual([{ kind: "reasoning", text: " then two" }]);
    expect(splitter.push("ink>Done")).toEqual([{ kind: "text", text: "Done" }]);
    expect(splitter.push(" and <think>more</think>")).toEqual([{ kind: "text", text: " and <think>more</think>" }]);
  });

  it("leaves a tag that is not at the start, or text that only looks like one, as text", () => {
    expect(read(["Use the <think> tag like this: <think>x</think>"])).toEqual({ reasoning: "", text: "Use the <think> tag like this: <think>x</think>" });
    expect(read(["<thinking>not ours"])).toEqual({ reasoning: "", text: "<thinking>not ours" });
    expect(read(["  <b>bold</b>"])).toEqual({ reasoning: "", text: "  <b>bold</b>" });
  });

  it("ends a stream cut inside the tags with what it had: reasoning stays reasoning, a half tag is text", () => {
    expect(read(["<think>still thinking"])).toEqual({ reasoning: "still thinking", text: "" });
    expect(read(["<think>still thinking</thi"])).toEqual({ reasoning: "still thinking</thi", text: "" });
    expect(read(["<thi"])).toEqual({ reasoning: "", text: "<thi" });
    expect(read(["\n\n"])).toEqual({ reasoning: "", text: "\n\n" });
  });

  it("sends white space it held before a tool call ahead of the call, in the upstream's order", () => {
    const reader = createHubEventReader();
    expect(reader.push(deltaItem({ content: "\n\n" }))).toEqual([]);
    const call = { index: 0, id: "call_1", type: "function" as const, function: { name: "f", arguments: "{}" } };
    expect(reader.push(deltaItem({ tool_calls: [call] }))).toEqual([
      { type: "text", text: "\n\n" },
      { type: "tool_start", call: 0, id: "call_1", name: "f" },
      { type: "tool_args", call: 0, text: "{}" },
    ]);
    expect(reader.end()).toEqual([]);
  });

  it("reads a whole reply the same way, and prefers a reasoning field the upstream gave", () => {
    expect(readHubReply(hubReply({ content: answer }))).toMatchObject({ reasoning: { text: "\nThe user wants 2+2.\n", field: "reasoning_content" }, text: "It is 4.", answer: "It is 4." });
    expect(readHubReply(hubReply({ content: answer, reasoning: "Field." }))).toMatchObject({ reasoning: { text: "Field.", field: "reasoning" }, text: "It is 4." });
  });
});

describe("reasoning fields", () => {
  it("reads reasoning_content, reasoning as a string or {text}/{content}, and ignores empty placeholders", () => {
    expect(reasoningOf({ reasoning_content: "a" })).toEqual({ text: "a", field: "reasoning_content" });
    expect(reasoningOf({ reasoning: "b" })).toEqual({ text: "b", field: "reasoning" });
    expect(reasoningOf({ reasoning: { text: "c" } })).toEqual({ text: "c", field: "reasoning" });
    expect(reasoningOf({ reasoning: { content: "d" } })).toEqual({ text: "d", field: "reasoning" });
    expect(reasoningOf({ reasoning_content: "", reasoning: null })).toBeUndefined();
  });

  it("reads OpenRouter's reasoning_details[] when no other field holds the text, and never twice", () => {
    const details = [
      { type: "reasoning.summary", summary: "Plan: ", format: "openai-responses-v1", index: 0 },
      { type: "reasoning.encrypted", data: "gAAAA...", format: "openai-responses-v1", index: 1 },
      { type: "reasoning.text", text: "check the file.", signature: null, index: 2 },
    ];
    expect(reasoningOf({ reasoning: null, reasoning_details: details })).toEqual({ text: "Plan: check the file.", field: "reasoning" });
    expect(reasoningOf({ reasoning: "Plan: check the file.", reasoning_details: details })).toEqual({ text: "Plan: check the file.", field: "reasoning" });
    expect(reasoningOf({ reasoning_details: [{ type: "reasoning.encrypted", data: "x" }] })).toBeUndefined();
  });

  it("makes the reasoning the answer only when the upstream gave nothing else (DeepSeek V4-flash's empty content)", () => {
    const parts = (message: Parameters<typeof hubReply>[0]) => readHubReply(hubReply(message));
    expect(parts({ content: "", reasoning_content: "It is 4." })).toMatchObject({ text: "", answer: "It is 4." });
    expect(parts({ content: "Four.", reasoning_content: "It is 4." }).answer).toBe("Four.");
    expect(parts({ content: null, reasoning_content: "Run ls.", tool_calls: [{ id: "c", type: "function", function: { name: "ls", arguments: "{}" } }] }).answer).toBe("");
  });
});

describe("a server's tool-call pieces of another shape", () => {
  it("passes over a piece that is not an object, and tool_calls that is not a list, reading the calls around them", () => {
    const reader = createHubEventReader();
    const call = { index: 0, id: "call_1", type: "function" as const, function: { name: "f", arguments: "{}" } };
    const odd = (toolCalls: unknown) => deltaItem({ tool_calls: toolCalls } as Parameters<typeof deltaItem>[0]);
    expect(reader.push(odd([null, 3, call]))).toEqual([
      { type: "tool_start", call: 0, id: "call_1", name: "f" },
      { type: "tool_args", call: 0, text: "{}" },
    ]);
    expect(reader.push(odd("call"))).toEqual([]);
    expect(reader.push(odd({ index: 0 }))).toEqual([]);
    expect(reader.end()).toEqual([]);
  });
});
