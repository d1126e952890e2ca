/**
 * The wire formats' names (SPEC section 10, Formats), in the order SPEC lists them: what the configuration accepts in
 * an upstream's `formats`. Apart from the registry (`index.ts`) so that reading a config loads no translator.
 */
export const FORMAT_NAMES = ["chat", "responses", "messages", "gemini"] as const;

/** The four wire formats: what a body is, whichever family's path it came on. */
export type Format = (typeof FORMAT_NAMES)[number];
