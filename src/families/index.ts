import { chatFamily } from "./chat.js";
import { geminiFamily } from "./gemini.js";
import { messagesFamily } from "./messages.js";
import type { IncomingHttpHeaders } from "node:http";
import type { Claim, Family, FamilyName, Segments, Usage } from "./types.js";

export type * from "./types.js";
export { chatFamily } from "./chat.js";
export { geminiFamily, geminiModelPath } from "./gemini.js";
export { messagesFamily, DEFAULT_ANTHROPIC_VERSION } from "./messages.js";
export { FORMAT_FAMILY, TRANSLATION_ORDER, generatePath } from "./formats.js";

/**
 * Every family, in the order they claim a path: Gemini's prefixes are its own, messages takes its segment and
 * the `/v1/` requests that carry a version header, and chat takes the rest of `/v1/`.
 */
export const FAMILIES: readonly Family[] = [geminiFamily, messagesFamily, chatFamily];

/** The family of a name given on the command line (`--api`). */
export const familyNamed = (name: FamilyName): Family => FAMILIES.find((family) => family.name === name)!;

/** Usage before anything was read: each count stays undefined until the upstream reports it. */
export const noUsage = (): Usage => ({ inputTokens: undefined, outputTokens: undefined, cacheReadTokens: undefined, cacheWriteTokens: undefined });

/** The names, for `--api` choices. */
export const FAMILY_NAMES: readonly FamilyName[] = ["chat", "messages", "gemini"];

/** A claimed path: the family that serves it and what it found there. */
export interface FamilyClaim extends Claim {
  family: Family;
}

/** The first family that serves this method and (normalised) path, in `FAMILIES` order, with what it found there. */
export function claimPath(method: string, path: string, headers: IncomingHttpHeaders, segments: Segments): FamilyClaim | undefined {
  for (const family of FAMILIES) {
    const claim = family.claim(method, path, headers, segments);
    if (claim) return { family, ...claim };
  }
  return undefined;
}
