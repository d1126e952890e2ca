import { parseJsonObject } from "../parse-json.js";

/** The `error.message` of an upstream error body (both families put it there), if the body has one. */
export function upstreamErrorMessage(text: string): string | undefined {
  const error = parseJsonObject(text)?.error as { message?: unknown } | undefined;
  return typeof error?.message === "string" ? error.message : undefined;
}
