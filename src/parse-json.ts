/**
 * `JSON.parse` for bytes from the network that are only looked at: a JSON object, or undefined for anything else
 * (invalid JSON, arrays, `null`, scalars), never an exception.
 */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
