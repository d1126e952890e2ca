/**
 * The wire formats (SPEC section 10, Formats), each with the family it lives in (SPEC 1), in the order SPEC lists
 * them: what the configuration accepts in an upstream's `formats`, and all the upstream layer needs to know of a
 * format. Apart from the registry (`index.ts`), so that neither reading a config nor calling an upstream loads a
 * translator.
 */
export const FORMAT_FAMILIES = { chat: "chat", responses: "chat", messages: "messages", gemini: "gemini" } as const;

/** The four wire formats: what a body is, whichever family's path it came on. */
export type Format = keyof typeof FORMAT_FAMILIES;

/** The three API families (SPEC section 1): OpenAI's (`chat`), Anthropic's (`messages`), Google's (`gemini`). */
export type FamilyName = (typeof FORMAT_FAMILIES)[Format];

/** The formats' names, in the order SPEC lists them. */
export const FORMAT_NAMES = Object.keys(FORMAT_FAMILIES) as readonly Format[];
