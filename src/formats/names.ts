/**
 * The formats' names and families (SPEC section 10, Formats; SPEC 1): the half of the registry (`index.ts`) that
 * needs no translator, so that neither reading a config nor calling an upstream loads one. `index.ts`'s
 * `registerFormat` adds to it; every list of "all formats" (a kind's defaults, the config's choices, `gateway add`'s
 * probe) is `FORMAT_NAMES` itself, never a copy, so a format registered later is in each.
 */
const BUILT_IN = { chat: "chat", responses: "chat", messages: "messages", gemini: "gemini" } as const;

/** The four built-in wire formats: what a body is, whichever family's path it came on. */
export type Format = keyof typeof BUILT_IN;

/** The three API families (SPEC section 1): OpenAI's (`chat`), Anthropic's (`messages`), Google's (`gemini`). */
export type FamilyName = (typeof BUILT_IN)[Format];

const FAMILY_OF = new Map<Format, FamilyName>(Object.entries(BUILT_IN) as [Format, FamilyName][]);

const NAMES: Format[] = [...FAMILY_OF.keys()];

/** The formats' names, in the order SPEC lists them, then any registered after. */
export const FORMAT_NAMES: readonly Format[] = NAMES;

/** The name of the family a format lives in. */
export const familyNameOf = (format: Format): FamilyName => FAMILY_OF.get(format)!;

/** A format's name and family, for `registerFormat`; a name known already is left as it is. */
export function addFormatName(format: Format, family: FamilyName): void {
  if (FAMILY_OF.has(format)) return;
  FAMILY_OF.set(format, family);
  NAMES.push(format);
}
