/** Small pieces shared by the family and format modules: field tests for body rules, token counts, model lists. */

import type { FieldRule, StreamFraming } from "./types.js";
import type { Family } from "./family-types.js";

export const isString = (v: unknown): boolean => typeof v === "string";
export const isArray = (v: unknown): boolean => Array.isArray(v);
export const isPositiveInteger = (v: unknown): boolean => typeof v === "number" && Number.isInteger(v) && v > 0;

/** The body rules of Chat Completions and of Anthropic's count_tokens: a model and a list of messages. */
export const MODEL_AND_MESSAGES: readonly FieldRule[] = [
  ["model", "a string", isString],
  ["messages", "an array", isArray],
];

/**
 * A token count when the value is one (a finite number, not negative), else undefined (so an earlier report stands).
 * A server's negative count is no count: recorded, it made the price table refuse the record, and `stats` with it.
 */
export const count = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined);

/** The sum of the counts that are present; undefined when none is. */
export function sumCounts(...values: unknown[]): number | undefined {
  let total: number | undefined;
  for (const value of values) {
    const counted = count(value);
    if (counted !== undefined) total = (total ?? 0) + counted;
  }
  return total;
}

/** A list's creation time (chat's Unix seconds, messages' RFC 3339 text) as Unix seconds; undefined when it gives none. */
export function secondsOf(value: unknown): number | undefined {
  const seconds = typeof value === "number" ? value : typeof value === "string" ? Date.parse(value) / 1000 : NaN;
  return Number.isFinite(seconds) && seconds > 0 ? Math.floor(seconds) : undefined;
}

/** Unix seconds as the RFC 3339 time Anthropic's model list gives (`2025-02-19T00:00:00Z`). */
export const rfc3339Of = (seconds: number): string => new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

/** Days since the epoch as `YYYY-MM-DD`, for model rows; `""` when unknown. */
export function dateOf(value: unknown): string {
  if (typeof value === "number") return new Date(value * 1000).toISOString().slice(0, 10);
  return typeof value === "string" ? value.slice(0, 10) : "";
}

/** The array at `value`, or an empty one. */
export const arrayOf = <T = Record<string, unknown>>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

/** Who lists an alias entry, in the shapes that say who owns a model. */
export const ALIAS_OWNER = "gateway-alias";

/** `list` with one entry per alias id appended (SPEC section 7), in the family's shape. */
export function withAliases(family: Family, list: Record<string, unknown>, aliases: readonly string[]): Record<string, unknown> {
  const { models } = family;
  return models.list([...models.entries(list), ...aliases.map((id) => models.entry(id, id, ALIAS_OWNER))], list);
}

/** A model call that streams when its body says `"stream": true` (every format but Gemini, whose method says it). */
export const streamsWhenAsked = (_rest: string, body: Record<string, unknown> | undefined): boolean => body?.stream === true;

/** Framing for the formats whose streams are always server-sent events. */
export const serverSentEvents = (): StreamFraming => "sse";

/** Whether `value`, or any object or array inside it, holds an object that passes `test` (a walk of the whole tree). */
export function holdsObject(value: unknown, test: (object: Record<string, unknown>) => boolean): boolean {
  if (Array.isArray(value)) return value.some((item) => holdsObject(item, test));
  if (typeof value !== "object" || value === null) return false;
  const object = value as Record<string, unknown>;
  return test(object) || Object.values(object).some((item) => holdsObject(item, test));
}

/** Where a body holds a value: the keys and indexes that lead to it (`["messages", 0, "content", 2, "text"]`). */
export type BodyPath = readonly (string | number)[];

/**
 * The texts of a content field found at `path`: the field itself when it is a string, else each of its parts that
 * holds text (`text`, `input_text`), in order.
 */
export function textPaths(content: unknown, path: BodyPath): BodyPath[] {
  if (typeof content === "string") return [path];
  return arrayOf<{ text?: unknown } | null>(content).flatMap((part, i) => (typeof part?.text === "string" ? [[...path, i, "text"]] : []));
}

/**
 * The texts of the system prompt and the first user message of a list of messages at `path` (chat's `messages`,
 * Responses' `input`): every system or developer message before the first user message (Codex sends several), then
 * that user message's.
 */
export function openingTextPaths(list: unknown, path: BodyPath): BodyPath[] {
  const messages = arrayOf<{ role?: unknown; content?: unknown } | null>(list);
  const user = messages.findIndex((message) => message?.role === "user");
  return (user === -1 ? messages : messages.slice(0, user + 1)).flatMap((message, i) =>
    message?.role === "system" || message?.role === "developer" || i === user ? textPaths(message!.content, [...path, i, "content"]) : [],
  );
}

/** A reasoning effort that asks for reasoning: any but none and minimal (SPEC 11, Routes: `thinking`). */
export const asksEffort = (effort: unknown): boolean => typeof effort === "string" && effort !== "none" && effort !== "minimal";
