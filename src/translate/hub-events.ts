import type { HubChunk, HubToolCallDelta, HubUsage, ReasoningField } from "./hub.js";
import { createThinkSplitter, type ContentPiece } from "./think-tags.js";
import { argumentsText } from "./tool-arguments.js";
import type { ErrorFields, HubStreamItem } from "./types.js";

/**
 * A chat stream reduced to what every client format is built from, whatever shape the upstream used: reasoning
 * and text pieces, each tool call opened once its name is known and fed its argument text in order, the finish
 * reason, the usage, an error. The three client-side stream translators (messages, responses, gemini) read these
 * instead of raw chunks, so the tool-call rules of SPEC 10 rule 3 live in one place.
 */
export type HubEvent =
  | { type: "reasoning"; text: string; field: ReasoningField }
  | { type: "text"; text: string }
  /**
   * `call` counts tool calls from 0 in the order they were opened; `id` is the upstream's, undefined when it sent none
   * (each client format then makes one with its own prefix: `toolu_` for messages, `call_` for the others).
   */
  | { type: "tool_start"; call: number; id: string | undefined; name: string }
  | { type: "tool_args"; call: number; text: string }
  /** The upstream's `finish_reason`, as it said it (first one only). */
  | { type: "finish"; reason: string }
  /** The latest usage report; a later one replaces it. */
  | { type: "usage"; usage: HubUsage }
  | { type: "error"; error: ErrorFields };

type Delta = HubChunk["choices"][number]["delta"];

/**
 * The text of a message's or delta's `content`: a string, or a list of parts whose `text` parts count (Mistral sends
 * `[{"type": "text", "text": ...}]`, in replies and in stream deltas: its API's `AssistantMessage.content` and
 * `DeltaMessage.content` are a string or a list of chunks). Its `thinking` chunks are left out: reasoning sent back to
 * Mistral would need its own chunk shape, which no request translation makes.
 */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content as { type?: unknown; text?: unknown }[]) if (part?.type === "text" && typeof part.text === "string") text += part.text;
  return text;
}

/**
 * Whether a choice is the one translated: index 0 (or none, for a server that leaves it out). The other formats have
 * no choices, and a second one (`n` > 1) is another answer, never a piece of the first.
 */
export const isFirstChoice = (choice: { index?: unknown } | null | undefined): boolean => (choice?.index ?? 0) === 0;

/** The text of OpenRouter's `reasoning_details[]`: its `reasoning.text` entries' `text` and `reasoning.summary` entries' `summary` (encrypted entries have none). */
function detailsText(details: unknown): string {
  if (!Array.isArray(details)) return "";
  return details
    .map((entry: { text?: unknown; summary?: unknown } | null) => (typeof entry?.text === "string" ? entry.text : typeof entry?.summary === "string" ? entry.summary : ""))
    .join("");
}

/**
 * Reasoning text of a delta or message: `reasoning_content`, or `reasoning` as a string or `{text}`/`{content}`, or
 * else OpenRouter's `reasoning_details[]` (which it sends beside `reasoning` for most models, and alone for some).
 * Empty placeholders are none. Read for every upstream whatever its kind says (SPEC 11): a server sends one of these
 * names and uses none of them for anything else, the same server names it differently across versions (vLLM before
 * 0.16 wrote `reasoning_content`), and a `generic` entry or a LiteLLM in front of any of them gets what it sends. The
 * kind decides only the field replayed reasoning is sent back under (`KindQuirks.reasoningField`), where a wrong
 * name is refused or dropped.
 */
export function reasoningOf(delta: { reasoning_content?: unknown; reasoning?: unknown; reasoning_details?: unknown }): { text: string; field: ReasoningField } | undefined {
  if (typeof delta.reasoning_content === "string" && delta.reasoning_content) return { text: delta.reasoning_content, field: "reasoning_content" };
  const reasoning = delta.reasoning as unknown;
  let text = "";
  if (typeof reasoning === "string") text = reasoning;
  else if (typeof reasoning === "object" && reasoning !== null) {
    const { text: inner, content } = reasoning as { text?: unknown; content?: unknown };
    text = typeof inner === "string" ? inner : typeof content === "string" ? content : "";
  }
  text ||= detailsText(delta.reasoning_details);
  return text ? { text, field: "reasoning" } : undefined;
}

/**
 * Whether the reasoning must be sent as the answer's text: the upstream gave reasoning and nothing else (no visible
 * text, no tool call). DeepSeek V4-flash puts its whole answer in `reasoning_content` with an empty `content`, and a
 * client shown only a thinking block or a reasoning item sees no answer at all (Claude Code and Codex print nothing;
 * Gemini CLI rejects the turn as "empty response text" and asks again, research C3).
 */
export const reasoningStandsIn = (visibleText: string, calledTools: boolean, reasoning: string): boolean =>
  visibleText.trim() === "" && !calledTools && reasoning !== "";

interface Call {
  index: number | undefined;
  id: string | undefined;
  name: string | undefined;
  /** Argument text that came before the name: sent once the call opens. */
  pending: string;
  /** Argument text sent so far. */
  args: string;
  ordinal: number | undefined;
  /** The call opened without an id (its name came before its id, or no id ever comes). */
  madeUp: boolean;
  /** The upstream's own id, when it came after the call opened without one. */
  lateId: string | undefined;
}

/** A piece of content as a hub event: reasoning out of `<think>` tags comes under the usual field name. */
const contentEvent = (piece: ContentPiece): HubEvent =>
  piece.kind === "reasoning" ? { type: "reasoning", text: piece.text, field: "reasoning_content" } : { type: "text", text: piece.text };

/** Whether a chunk's or reply's `usage` holds counts (servers send `null` or an empty object in between). */
export const hasUsage = (usage: unknown): usage is HubUsage => typeof usage === "object" && usage !== null && typeof (usage as HubUsage).prompt_tokens === "number";

/**
 * Reads hub stream items into `HubEvent`s. Tool-call pieces are matched to calls by id first (an id repeated on
 * every piece, the same call at several indexes), then by index (an id that never comes, or comes after the name);
 * a new id on a known index is a new call; a piece that repeats a call's whole arguments after they were streamed is a replay and is
 * dropped; arguments sent as an object become JSON text; argument text before the name waits for it. Content that opens
 * with `<think>` is reasoning up to `</think>` (`think-tags.ts`); `end()` gives what the splitter still held. Only the
 * first choice is read (`isFirstChoice`).
 */
export function createHubEventReader() {
  const calls: Call[] = [];
  const content = createThinkSplitter();
  let opened = 0;
  let finished = false;

  function callFor(piece: HubToolCallDelta): Call {
    if (piece.id) {
      const byId = calls.find((call) => call.id === piece.id || call.lateId === piece.id);
      if (byId) return byId;
      const waiting = [...calls].reverse().find((call) => call.id === undefined && call.index === piece.index && call.ordinal === undefined);
      if (waiting) {
        waiting.id = piece.id;
        return waiting;
      }
      // The name came first and the call opened without an id; this is its real id, late.
      const late = [...calls].reverse().find((call) => call.madeUp && call.lateId === undefined && call.index === piece.index);
      if (late) {
        late.lateId = piece.id;
        return late;
      }
    } else {
      const byIndex = piece.index === undefined ? calls.at(-1) : [...calls].reverse().find((call) => call.index === piece.index);
      if (byIndex) return byIndex;
    }
    const call: Call = { index: piece.index, id: piece.id, name: undefined, pending: "", args: "", ordinal: undefined, madeUp: false, lateId: undefined };
    calls.push(call);
    return call;
  }

  function toolPiece(piece: HubToolCallDelta, out: HubEvent[]): void {
    const call = callFor(piece);
    if (!call.name && piece.function?.name) call.name = piece.function.name;
    const text = argumentsText(piece.function?.arguments);
    if (call.ordinal === undefined) {
      call.pending += text;
      if (!call.name) return;
      // Content the `<think>` splitter still holds (white space that could have opened a tag) came before the
      // call: it goes out now, in the upstream's order, not after the call at the end of the stream.
      out.push(...content.end().map(contentEvent));
      call.ordinal = opened++;
      call.madeUp = call.id === undefined;
      out.push({ type: "tool_start", call: call.ordinal, id: call.id, name: call.name });
      if (call.pending) out.push({ type: "tool_args", call: call.ordinal, text: call.pending });
      call.args = call.pending;
      return;
    }
    if (!text || (call.args.length > 0 && text === call.args)) return;
    call.args += text;
    out.push({ type: "tool_args", call: call.ordinal, text });
  }

  function delta(d: Delta, out: HubEvent[]): void {
    const reasoning = reasoningOf(d);
    if (reasoning) out.push({ type: "reasoning", ...reasoning });
    const text = contentText(d.content);
    if (text) out.push(...content.push(text).map(contentEvent));
    // A server's piece that is not an object (`tool_calls: [null]`) carries no call: it is passed over, not a failure.
    for (const piece of Array.isArray(d.tool_calls) ? d.tool_calls : []) if (typeof piece === "object" && piece !== null) toolPiece(piece, out);
  }

  return {
    push(item: HubStreamItem): HubEvent[] {
      if (item.type === "error") return [{ type: "error", error: item.error }];
      const out: HubEvent[] = [];
      const { chunk } = item;
      for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
        if (!isFirstChoice(choice)) continue;
        if (choice?.delta) delta(choice.delta, out);
        const reason = choice?.finish_reason;
        if (typeof reason === "string" && reason && !finished) {
          finished = true;
          out.push({ type: "finish", reason });
        }
      }
      if (hasUsage(chunk.usage)) out.push({ type: "usage", usage: chunk.usage });
      return out;
    },
    /** The upstream stream ended: content the `<think>` splitter was still holding. */
    end(): HubEvent[] {
      return content.end().map(contentEvent);
    },
    /** How many tool calls were opened so far (a method: a getter in a literal costs each stream a map, see event-stream-writer.ts). */
    toolCalls(): number {
      return opened;
    },
  };
}

export type HubEventReader = ReturnType<typeof createHubEventReader>;
