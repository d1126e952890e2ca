import { chatFamily } from "./chat/family.js";
import type { Family } from "./family-types.js";
import { geminiFamily } from "./gemini/family.js";
import { messagesFamily } from "./messages/family.js";
import { familyNameOf, type FamilyName, type Format } from "./names.js";

/**
 * Every family, in the order they claim a path: Gemini's prefixes are its own, messages takes its segment and
 * the `/v1/` requests that carry a version header, and chat takes the rest of `/v1/`. Apart from the formats'
 * registry: what the upstream layer, the echo upstream's lists and the command line need loads no translator.
 */
export const FAMILIES: readonly Family[] = [geminiFamily, messagesFamily, chatFamily];

/** The names, for `--api` choices. */
export const FAMILY_NAMES: readonly FamilyName[] = ["chat", "messages", "gemini"];

/** The family of a name given on the command line (`--api`). */
export const familyNamed = (name: FamilyName): Family => FAMILIES.find((family) => family.name === name)!;

/** The family a format lives in (`names.ts`). */
export const familyOf = (format: Format): Family => familyNamed(familyNameOf(format));
