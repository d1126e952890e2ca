import { isRecord } from "../../parse-json.js";
import type { Json } from "../../translate/hub.js";
import type { ReasoningSeal } from "../../translate/types.js";

/**
 * Codex's remote compaction on a route that translates Responses to chat (SPEC 11). Codex asks in one of two ways:
 * `POST /v1/responses/compact` (`codex-rs/codex-api`, `CompactionInput`: model, input, instructions, tools), answered
 * `{"output": [...]}`, or (remote compaction v2, `codex-rs/core/src/compact_remote_v2_attempt.rs`) an ordinary
 * streamed `/v1/responses` request whose input ends with `{"type":"compaction_trigger"}`, from whose stream it keeps
 * the one `output_item.done` whose item is a `compaction` (`compact_remote_v2.rs`: anything but exactly one is fatal).
 * Either way the routed chat model writes a summary, and the gateway hands it back sealed as that item's
 * `encrypted_content` (`codex-rs/protocol/src/models.rs`, `ResponseItem::Compaction { id?, encrypted_content }`,
 * alias `compaction_summary`; `ContextCompaction { id?, encrypted_content? }` is its other form). Codex keeps the
 * item in its history and sends it back on every later turn, where the gateway opens it into the summary's text.
 */

/** The compaction endpoint, under the family's prefix. */
export const COMPACT_PATH = "/v1/responses/compact";

/** How a request asks for a compaction: the endpoint of its own, or a trigger item ending the input. */
export type CompactionAsk = "endpoint" | "trigger";

/** The instruction the routed model gets after the conversation, as the last user message (stated in docs/translation.md). */
export const SUMMARY_PROMPT = [
  "Stop here and write a handoff summary of this conversation instead of continuing it. The summary will replace every",
  "message above, and the work will go on from it alone, so leave out nothing the work needs: the user's goal and each",
  "request and constraint they gave; what has been done (commands run, files read or changed, with their paths, and",
  "what came of them); decisions made and why; what is left to do and the next step. Keep names, paths, numbers and",
  "error messages exact. Do not call any tool: answer with the summary alone.",
].join(" ");

/** Whether (and how) a Responses request at `path` asks for a compaction; undefined for an ordinary request. */
export function compactionAsked(body: Json, path: string | undefined): CompactionAsk | undefined {
  if (path === COMPACT_PATH) return "endpoint";
  const last = Array.isArray(body.input) ? body.input.at(-1) : undefined;
  return isRecord(last) && last.type === "compaction_trigger" ? "trigger" : undefined;
}

/** The one output item of a compaction: the summary, sealed so that only this gateway can read it back. */
export const compactionItem = (id: string, summary: string, seal: ReasoningSeal): Json => ({
  id,
  type: "compaction",
  encrypted_content: seal.sealSummary(summary),
});

/**
 * The user messages of a compaction endpoint's input, as they came: the API answers "all user messages, followed by
 * a single compaction item" (openai-node, `CompactedResponse.output`), and Codex keeps them from there.
 */
export function userMessages(input: unknown): Json[] {
  if (typeof input === "string") return [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }];
  if (!Array.isArray(input)) return [];
  return input.filter((item): item is Json => isRecord(item) && (item.type ?? "message") === "message" && item.role === "user");
}

/** The answer of `POST /v1/responses/compact`: the user messages, then the one compaction item, with the id, time and usage the API gives it. */
export function compactedResponse(id: string, createdAt: number, messages: readonly Json[], item: Json, usage: Json): Json {
  return { id, object: "response.compaction", created_at: createdAt, output: [...messages, item], usage };
}
