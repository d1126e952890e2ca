/** An object (not an array, not null): what a JSON object parses to. */
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * `JSON.parse` for bytes from the network that are only looked at: a JSON object, or undefined for anything else
 * (invalid JSON, arrays, `null`, scalars), never an exception.
 */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `text` without the byte-order mark some servers put before a body (U+FEFF): `JSON.parse` refuses it, and text decoders drop it. */
export const withoutByteOrderMark = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
