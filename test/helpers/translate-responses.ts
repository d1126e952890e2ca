import OpenAI from "openai";
import type { HubChunk, Json } from "../../src/translate/hub.js";
import { responsesClient } from "../../src/formats/responses/translators.js";
import type { ClientEvent, HubStreamItem, ReplyHints, TranslateContext } from "../../src/translate/types.js";
import { checkedStream, deltaItem, testContext, usageItem } from "./translate.js";

/** What the Responses translator tests share: the translator driven directly, the events' parts, the SDK over a canned body. */

/** A Responses request translated to the hub with a test context. */
export const toHub = (body: Json, ctx: TranslateContext = testContext()) => responsesClient.toHub(body, ctx);

/** A chunk holding tool-call pieces (any field may be left out, as upstreams do). */
export function toolChunk(pieces: NonNullable<HubChunk["choices"][number]["delta"]["tool_calls"]>, finish: string | null = null): HubStreamItem {
  return deltaItem({ tool_calls: pieces }, finish);
}

/** Every event a stream sends for a script of hub items, `start()` to `finish()`. */
export function runStream(items: HubStreamItem[], hints: ReplyHints = {}, ctx = testContext()): ClientEvent[] {
  const stream = checkedStream(responsesClient, hints, ctx);
  return [...stream.start(), ...items.flatMap((item) => stream.push(item)), ...stream.finish()];
}

/** The `type` of each event. */
export const types = (events: ClientEvent[]) => events.map((event) => (event.data as { type: string }).type);
/** The data of the events of one type. */
export const data = (events: ClientEvent[], type: string) => events.filter((event) => event.event === type).map((event) => event.data as Json);
/** The response that `response.completed` (the last event) carries. */
export const completed = (events: ClientEvent[]) => (events.at(-1)!.data as { response: Json }).response;

/** A deep copy with every `created_at` set to 0 (timestamps may differ by a second between two runs). */
export function stamped<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (key, entry: unknown) => (key === "created_at" ? 0 : entry)) as T;
}

/** An OpenAI SDK client whose transport answers with `body`. */
export function sdkAnswering(body: string, contentType: string): OpenAI {
  return new OpenAI({ apiKey: "test", baseURL: "http://gateway.test/v1", fetch: async () => new Response(body, { headers: { "content-type": contentType } }) });
}

/** Removes what the SDK adds while parsing (`output_parsed`, `parsed_arguments`, `parsed`), to compare with the wire body. */
export function unparsed(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, entry: unknown) => (key === "output_parsed" || key === "parsed_arguments" || key === "parsed" ? undefined : entry));
}

/** Chat usage with cached and reasoning tokens, and the same as Responses counts it. */
export const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, prompt_tokens_details: { cached_tokens: 40 }, completion_tokens_details: { reasoning_tokens: 5 } };
export const responseUsage = { input_tokens: 100, input_tokens_details: { cached_tokens: 40 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 5 }, total_tokens: 120 };

/** A response object as the translator builds it (`created_at` stamped 0), with `overrides`. */
export function envelopeOf(overrides: Json): Json {
  return {
    id: "resp_1",
    object: "response",
    created_at: 0,
    status: "completed",
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: "client-model",
    output: [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: null,
    store: false,
    temperature: null,
    tool_choice: "auto",
    tools: [],
    top_p: null,
    truncation: "disabled",
    usage: responseUsage,
    metadata: {},
    ...overrides,
  };
}

/** Reasoning, text, a function call streamed in pieces, the finish chunk, then the usage chunk after it. */
export const canonicalScript = (): HubStreamItem[] => [
  deltaItem({ role: "assistant", reasoning_content: "Think" }),
  deltaItem({ reasoning_content: "ing." }),
  deltaItem({ content: "Let me look." }),
  toolChunk([{ index: 0, id: "call_a", type: "function", function: { name: "exec_command", arguments: "" } }]),
  toolChunk([{ index: 0, function: { arguments: '{"cmd":' } }]),
  toolChunk([{ index: 0, function: { arguments: '"ls"}' } }]),
  deltaItem({}, "tool_calls"),
  usageItem(usage),
];
