/** A piece of an assembled reply, in the order the stream produced it. */
export type ReplyPart =
  | { kind: "text"; text: string }
  | { kind: "reasoning"; text: string }
  | { kind: "tool_call"; id: string | undefined; name: string; arguments: string };

/** What a stream amounts to once its events are put together: what a client reading it would hold at the end. */
export interface AssembledReply {
  format: "chat" | "messages" | "responses" | "gemini";
  parts: ReplyPart[];
  stopReason: string | undefined;
  /** The format's own usage object, as the last event that carried it said (messages: start and delta merged). */
  usage: Record<string, unknown> | undefined;
  /** The message of an error event, when the stream carried one. */
  error: string | undefined;
}

type Json = Record<string, any>;

/** Parts keyed by where the format addresses them (a chat tool index, a messages block, a Responses output item). */
function builder() {
  const parts: ReplyPart[] = [];
  const byKey = new Map<string, ReplyPart>();
  return {
    parts,
    /** Text or reasoning, joined to the previous part when it is of the same kind. */
    append(kind: "text" | "reasoning", text: unknown): void {
      if (typeof text !== "string" || text === "") return;
      const last = parts.at(-1);
      if (last?.kind === kind) last.text += text;
      else parts.push({ kind, text });
    },
    open(key: string, part: ReplyPart): ReplyPart {
      parts.push(part);
      byKey.set(key, part);
      return part;
    },
    get: (key: string): ReplyPart | undefined => byKey.get(key),
  };
}

const errorText = (error: unknown): string | undefined =>
  error && typeof error === "object" ? String((error as Json).message ?? JSON.stringify(error)) : typeof error === "string" ? error : undefined;

function formatOf(event: Json): AssembledReply["format"] | undefined {
  if (typeof event.type === "string" && event.type.startsWith("response.")) return "responses";
  if (typeof event.type === "string" && /^(message_|content_block_|ping$)/.test(event.type)) return "messages";
  if (Array.isArray(event.choices)) return "chat";
  if (Array.isArray(event.candidates) || event.usageMetadata) return "gemini";
  return undefined;
}

/** Chat chunks: `delta.content`, reasoning, `delta.tool_calls[i]` pieces (a new id on a used index is a new call). */
function chat(events: Json[], out: ReturnType<typeof builder>, reply: AssembledReply): void {
  const calls = new Map<number, { id: string | undefined; key: string }>();
  for (const chunk of events) {
    if (chunk.usage) reply.usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta ?? {};
      out.append("reasoning", delta.reasoning_content ?? delta.reasoning);
      out.append("text", delta.content);
      for (const piece of delta.tool_calls ?? []) {
        const index = Number(piece.index ?? 0);
        let call = calls.get(index);
        if (!call || (piece.id && call.id && piece.id !== call.id)) {
          call = { id: piece.id, key: `${index}:${piece.id ?? ""}:${calls.size}` };
          calls.set(index, call);
          out.open(call.key, { kind: "tool_call", id: piece.id, name: "", arguments: "" });
        }
        const part = out.get(call.key) as Extract<ReplyPart, { kind: "tool_call" }>;
        part.id ??= piece.id;
        call.id ??= piece.id;
        part.name += piece.function?.name ?? "";
        part.arguments += piece.function?.arguments ?? "";
      }
      if (choice.finish_reason) reply.stopReason = choice.finish_reason;
    }
  }
}

/** Anthropic events: content blocks by index, `message_start` and `message_delta` usage merged. */
function messages(events: Json[], out: ReturnType<typeof builder>, reply: AssembledReply): void {
  for (const event of events) {
    if (event.type === "message_start") reply.usage = { ...event.message?.usage };
    else if (event.type === "message_delta") {
      reply.usage = { ...reply.usage, ...event.usage };
      reply.stopReason = event.delta?.stop_reason ?? reply.stopReason;
    } else if (event.type === "content_block_start") {
      const block = event.content_block ?? {};
      if (block.type === "tool_use" || block.type === "server_tool_use") {
        const input = block.input && Object.keys(block.input).length ? JSON.stringify(block.input) : "";
        out.open(String(event.index), { kind: "tool_call", id: block.id, name: block.name ?? "", arguments: input });
      } else {
        out.append(block.type === "thinking" ? "reasoning" : "text", block.text ?? block.thinking);
      }
    } else if (event.type === "content_block_delta") {
      const delta = event.delta ?? {};
      if (delta.type === "input_json_delta") {
        const part = out.get(String(event.index));
        if (part?.kind === "tool_call") part.arguments += delta.partial_json ?? "";
      } else if (delta.type === "thinking_delta") out.append("reasoning", delta.thinking);
      else out.append("text", delta.text);
    }
  }
}

/** Responses events: output items by `output_index`, their deltas, and `response.completed`'s usage and status. */
function responses(events: Json[], out: ReturnType<typeof builder>, reply: AssembledReply): void {
  for (const event of events) {
    const key = String(event.output_index);
    const item = event.item ?? {};
    switch (event.type) {
      case "response.output_item.added":
        if (item.type === "function_call" || item.type === "custom_tool_call") {
          out.open(key, { kind: "tool_call", id: item.call_id ?? item.id, name: item.name ?? "", arguments: item.arguments ?? item.input ?? "" });
        }
        break;
      case "response.output_item.done": {
        const part = out.get(key);
        // The done item is what the client keeps: its arguments are complete even when the deltas were not.
        if (part?.kind === "tool_call") part.arguments = item.arguments ?? item.input ?? part.arguments;
        break;
      }
      case "response.output_text.delta":
      case "response.refusal.delta":
        out.append("text", event.delta);
        break;
      case "response.reasoning_text.delta":
      case "response.reasoning_summary_text.delta":
        out.append("reasoning", event.delta);
        break;
      case "response.function_call_arguments.delta":
      case "response.custom_tool_call_input.delta": {
        const part = out.get(key);
        if (part?.kind === "tool_call") part.arguments += event.delta ?? "";
        break;
      }
      case "response.completed":
      case "response.incomplete":
      case "response.failed": {
        const response = event.response ?? {};
        reply.usage = response.usage ?? reply.usage;
        reply.stopReason = response.incomplete_details?.reason ?? response.status;
        reply.error ??= errorText(response.error);
        break;
      }
    }
  }
}

/** Gemini chunks: parts of the first candidate (thoughts as reasoning, each `functionCall` whole), the last usage. */
function gemini(events: Json[], out: ReturnType<typeof builder>, reply: AssembledReply): void {
  let calls = 0;
  for (const chunk of events) {
    if (chunk.usageMetadata) reply.usage = chunk.usageMetadata;
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall) {
        const call = part.functionCall;
        out.open(`call ${calls++}`, { kind: "tool_call", id: call.id, name: call.name ?? "", arguments: JSON.stringify(call.args ?? {}) });
      } else out.append(part.thought ? "reasoning" : "text", part.text);
    }
    if (candidate?.finishReason) reply.stopReason = candidate.finishReason;
  }
}

const READERS = { chat, messages, responses, gemini };

/**
 * The reply a stream of any of the four client formats amounts to: its text, reasoning and tool calls (with their
 * arguments) in order, its stop reason, its usage and any error it reported. `payloads` are the events' data,
 * parsed; anything that is not an object (`[DONE]`, keep-alives) is skipped. Undefined when no event shows a format.
 */
export function assembleReply(payloads: readonly unknown[]): AssembledReply | undefined {
  const events = payloads.filter((p): p is Json => typeof p === "object" && p !== null && !Array.isArray(p));
  let format: AssembledReply["format"] | undefined;
  for (const event of events) if ((format = formatOf(event))) break;
  if (!format) return undefined;
  const out = builder();
  const reply: AssembledReply = { format, parts: out.parts, stopReason: undefined, usage: undefined, error: undefined };
  READERS[format](events, out, reply);
  // An error event: `{error: {...}}` in three formats, Responses' own `error` event with its message at the top.
  for (const event of events) {
    if (event.error && event.type !== "response.failed") reply.error ??= errorText(event.error);
    else if (event.type === "error") reply.error ??= errorText(event);
  }
  return reply;
}
