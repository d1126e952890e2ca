import { isRecord } from "../../parse-json.js";
import type { Json } from "../../translate/hub.js";

/**
 * Reading a Gemini request body. Google's REST API parses its JSON as protobuf JSON, which accepts every field in
 * lowerCamelCase and in snake_case alike, and its own REST examples mix them (`system_instruction`,
 * `inline_data.mime_type`, `generationConfig`). So a client written against the real API may send either; these
 * helpers read both. They are used for the protocol's own fields only, never inside user data (tool arguments,
 * function responses, the property names of a schema).
 */

const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** A snake_case protocol name in lowerCamelCase (`google_search` -> `googleSearch`): one spelling to compare. */
export const camelCase = (name: string): string => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** The key a protocol field is given under in `from`: its camelCase name, or its snake_case twin, as `field` reads it. */
export function fieldKey(from: Json, name: string): string | undefined {
  if (from[name] !== undefined) return name;
  const snake = snakeCase(name);
  return from[snake] !== undefined ? snake : undefined;
}

/** The value of a protocol field given in camelCase, or of its snake_case twin. */
export function field(from: unknown, name: string): unknown {
  if (!isRecord(from)) return undefined;
  return from[name] ?? from[snakeCase(name)];
}

/** A field that must be an object: the object, or undefined. */
export function objectField(from: unknown, name: string): Json | undefined {
  const value = field(from, name);
  return isRecord(value) ? value : undefined;
}

/** A field that must be a list: its object entries (anything else in it is skipped), or none. */
export function objectsField(from: unknown, name: string): Json[] {
  const value = field(from, name);
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** A field that must be a string: the string, or undefined. */
export function stringField(from: unknown, name: string): string | undefined {
  const value = field(from, name);
  return typeof value === "string" ? value : undefined;
}

/** A field that must be a finite number: the number, or undefined. */
export function numberField(from: unknown, name: string): number | undefined {
  const value = field(from, name);
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/**
 * The generate request inside a `:countTokens` body, which comes as `{contents, ...}` or as
 * `{generateContentRequest: {model, contents, systemInstruction, tools, ...}}` (Gemini CLI, the SDKs): the caller
 * translates it with `geminiToHub` and counts the result locally (SPEC 10 rule 6). Here, not beside `geminiToHub`,
 * because the format's facts and count read it without loading a translator.
 */
export const countTokensRequest = (body: Json): Json => objectField(body, "generateContentRequest") ?? body;
