import { jsonrepair } from "jsonrepair";
import type { Json } from "./hub.js";

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Tool-call arguments as the object the messages and Gemini formats want. Chat upstreams send JSON text, and local
 * models sometimes send it broken (a missing brace, single quotes, a trailing comma): it is repaired when it can
 * be, else the call gets `{}`. Never throws: a reply is never lost for one bad argument string.
 */
export function parseToolArguments(text: string | Json | undefined): Json {
  if (isObject(text)) return text;
  if (!text?.trim()) return {};
  try {
    const value: unknown = JSON.parse(text);
    if (isObject(value)) return value;
  } catch {
    try {
      const repaired: unknown = JSON.parse(jsonrepair(text));
      if (isObject(repaired)) return repaired;
    } catch {
      // beyond repair
    }
  }
  return {};
}

/** Whether `text` is one whole JSON object: a tool call's arguments that no later piece can add to. */
export function parsesAsObject(text: string): boolean {
  try {
    return isObject(JSON.parse(text));
  } catch {
    return false;
  }
}

/** Arguments as JSON text, whatever the upstream sent (some send an object in place of the string). */
export const argumentsText = (value: string | Json | undefined): string => (typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value));
