import { chatFamily } from "./chat.js";
import { geminiFamily } from "./gemini.js";
import { messagesFamily } from "./messages.js";
import type { Family, FamilyName } from "./types.js";

export type * from "./types.js";
export { chatFamily } from "./chat.js";
export { geminiFamily } from "./gemini.js";
export { messagesFamily, DEFAULT_ANTHROPIC_VERSION } from "./messages.js";

/**
 * Every family, in the order they claim a path: Gemini's prefixes are its own, messages takes its segment and
 * the `/v1/` requests that carry a version header, and chat takes the rest of `/v1/`.
 */
export const FAMILIES: readonly Family[] = [geminiFamily, messagesFamily, chatFamily];

/** The family of a name given on the command line (`--api`). */
export const familyNamed = (name: FamilyName): Family => FAMILIES.find((family) => family.name === name)!;

/** The names, for `--api` choices. */
export const FAMILY_NAMES: readonly FamilyName[] = ["chat", "messages", "gemini"];
