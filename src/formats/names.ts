/**
 * The formats' names, families and usage conventions (SPEC section 10, Formats; SPEC 1; section 6, Tokens): the half
 * of the registry (`index.ts`) that needs no translator, so that neither reading a config, calling an upstream nor
 * pricing a record (`stats`, `logs`) loads one. `index.ts`'s `registerFormat` adds to it; every list of "all formats"
 * (a kind's defaults, the config's choices, `gateway add`'s probe) is `FORMAT_NAMES` itself, never a copy, so a format
 * registered later is in each. A unit test holds each descriptor to its entry here.
 */
const BUILT_IN = {
  chat: { family: "chat", cacheInInput: true },
  responses: { family: "chat", cacheInInput: true },
  messages: { family: "messages", cacheInInput: false },
  gemini: { family: "gemini", cacheInInput: true },
} as const;

/** The four built-in wire formats: what a body is, whichever family's path it came on. */
export type Format = keyof typeof BUILT_IN;

/** The three API families (SPEC section 1): OpenAI's (`chat`), Anthropic's (`messages`), Google's (`gemini`). */
export type FamilyName = (typeof BUILT_IN)[Format]["family"];

interface FormatEntry {
  readonly family: FamilyName;
  /** Whether the format's input count holds the cached tokens (its `UsageReader.cacheInInput`), which pricing asks. */
  readonly cacheInInput: boolean;
}

const ENTRIES = new Map<Format, FormatEntry>(Object.entries(BUILT_IN) as [Format, FormatEntry][]);

const NAMES: Format[] = [...ENTRIES.keys()];

/** The formats' names, in the order SPEC lists them, then any registered after. */
export const FORMAT_NAMES: readonly Format[] = NAMES;

/** The name of the family a format lives in. */
export const familyNameOf = (format: Format): FamilyName => ENTRIES.get(format)!.family;

/** Whether a format's input count holds the cached tokens; undefined for a name this gateway does not know. */
export const cacheInInputOf = (format: Format): boolean | undefined => ENTRIES.get(format)?.cacheInInput;

/** A format's name, family and usage convention, for `registerFormat`; a name known already is left as it is. */
export function addFormatName(format: Format, entry: FormatEntry): void {
  if (ENTRIES.has(format)) return;
  ENTRIES.set(format, entry);
  NAMES.push(format);
}
