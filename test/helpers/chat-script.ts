import { chatSse, chunk, completion, type ScriptedReply } from "./fake-upstream.js";

/** One chat answer, told once and sent either whole (JSON) or as a stream, so the two can be compared. */
export interface ChatScript {
  reasoning?: string;
  text?: string;
  toolCalls?: { id: string; name: string; args: Record<string, unknown> }[];
  finish?: string;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
}

const USAGE = { prompt_tokens: 20, completion_tokens: 7, total_tokens: 27, prompt_tokens_details: { cached_tokens: 4 } };

/** The script as a non-stream chat completion. */
export function scriptJson(script: ChatScript): ScriptedReply {
  const toolCalls = script.toolCalls?.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.args) } }));
  return {
    json: completion(
      { content: script.text ?? null, ...(script.reasoning ? { reasoning_content: script.reasoning } : {}), ...(toolCalls ? { tool_calls: toolCalls } : {}) },
      script.finish ?? (toolCalls ? "tool_calls" : "stop"),
      script.usage ?? USAGE,
    ),
  };
}

/** Text in pieces of about three characters, the way models stream. */
const pieces = (text: string): string[] => text.match(/[\s\S]{1,3}/g) ?? [];

/**
 * The script as a chat stream the way OpenAI sends one: role first, reasoning and text in small pieces, each tool
 * call opened with its id and name and then fed its arguments in pieces, the finish chunk, then usage in a trailing
 * `choices: []` chunk, then `[DONE]`.
 */
export function scriptStream(script: ChatScript): ScriptedReply {
  const chunks: unknown[] = [chunk({ role: "assistant", content: "" })];
  for (const piece of pieces(script.reasoning ?? "")) chunks.push(chunk({ reasoning_content: piece }));
  for (const piece of pieces(script.text ?? "")) chunks.push(chunk({ content: piece }));
  script.toolCalls?.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const piece of pieces(JSON.stringify(call.args))) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(chunk({}, script.finish ?? (script.toolCalls ? "tool_calls" : "stop")));
  chunks.push({ ...chunk({}), choices: [], usage: script.usage ?? USAGE });
  return { chunks: [chatSse(chunks)] };
}

/** A reply for a scripted upstream: the stream when the request asked for one, else the JSON. */
export const scripted = (script: ChatScript) => (request: { body: Record<string, unknown> | undefined }): ScriptedReply =>
  request.body?.stream === true ? scriptStream(script) : scriptJson(script);
