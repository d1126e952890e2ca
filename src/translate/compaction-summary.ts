import type { Json } from "./hub.js";
import type { ReasoningSeal } from "./types.js";

/**
 * What opens a summary the gateway made for Codex's compaction (SPEC 11) when it is sent back, so the model reads it
 * as the earlier turns it stands for: on a translated Responses route, and in a request for a native Responses upstream.
 */
export const SUMMARY_HEADING = "Summary of the earlier part of this conversation (the turns it replaces were compacted away):";

/** The item types that carry a compaction's summary (Codex's `Compaction`, its alias, and `ContextCompaction`). */
export const COMPACTION_ITEMS: ReadonlySet<unknown> = new Set(["compaction", "compaction_summary", "context_compaction"]);

/**
 * The text a `compaction` or `context_compaction` item stands for in the conversation: its summary under
 * `SUMMARY_HEADING` when the gateway sealed it, undefined when it did not (another provider's, a forgery, an edit).
 */
export function summaryText(item: Json, seal: ReasoningSeal): string | undefined {
  const summary = typeof item.encrypted_content === "string" ? seal.openSummary(item.encrypted_content) : undefined;
  return summary ? `${SUMMARY_HEADING}\n\n${summary}` : undefined;
}
