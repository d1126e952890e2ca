import type { BodyPath } from "../formats/fields.js";

type Json = Record<string, unknown>;

/**
 * `<gateway-route>NAME</gateway-route>` at the very start of a text, white space before it allowed (SPEC 11, Routes);
 * the white space after it goes with it, so that the text left reads as if the tag had never been there.
 */
const ROUTE_TAG = /^\s*<gateway-route>([^<]*)<\/gateway-route>\s*/;

/** A route tag found at the start of one of a request's texts. */
export interface FoundTag {
  /** Where the text is in the body. */
  path: BodyPath;
  /** The NAME, trimmed. */
  name: string;
  /** The text without the tag. */
  rest: string;
}

const valueAt = (body: unknown, path: BodyPath): unknown => path.reduce<unknown>((value, key) => (value as Record<string | number, unknown> | undefined)?.[key], body);

/**
 * Whether a text at `places` holds the tag's opening anywhere: true for every body `findRouteTags` finds a tag in,
 * and read as well from a body parsed from its latin1 text (the opening is ASCII, found there as in UTF-8).
 */
export function mayHoldRouteTag(body: Json, places: readonly BodyPath[]): boolean {
  return places.some((path) => {
    const text = valueAt(body, path);
    return typeof text === "string" && text.includes("<gateway-route>");
  });
}

/** The tags opening the texts at `places` (the format says where those are), in the order of the places. */
export function findRouteTags(body: Json, places: readonly BodyPath[]): FoundTag[] {
  const found: FoundTag[] = [];
  for (const path of places) {
    const text = valueAt(body, path);
    const match = typeof text === "string" ? ROUTE_TAG.exec(text) : null;
    if (match) found.push({ path, name: match[1]!.trim(), rest: (text as string).slice(match[0].length) });
  }
  return found;
}

/**
 * `container` with `value` at `path`, copied along the path only (the request as read stays as it came). A text part
 * left empty is dropped from its list, even when it was the list's only part: Anthropic refuses an empty text block
 * and Gemini an empty text part, while a system prompt of no blocks is no prompt.
 */
function withText(container: unknown, path: BodyPath, value: string): unknown {
  const [key, ...rest] = path;
  if (Array.isArray(container)) {
    const copy = [...container];
    if (rest.length === 1 && rest[0] === "text" && value === "") copy.splice(key as number, 1);
    else copy[key as number] = rest.length === 0 ? value : withText(copy[key as number], rest, value);
    return copy;
  }
  const copy = { ...(container as Json) };
  copy[key as string] = rest.length === 0 ? value : withText(copy[key as string], rest, value);
  return copy;
}

/**
 * The body with each found tag removed, whatever its NAME. Places are removed from the last to the first, so that a
 * part dropped from a list never moves a place still to come.
 */
export function withoutRouteTags(body: Json, found: readonly FoundTag[]): Json {
  return [...found].reverse().reduce<Json>((result, tag) => withText(result, tag.path, tag.rest) as Json, body);
}

/** `body` without the route tags opening its texts at `places`; `body` itself when none does. */
export function untagged(body: Json, places: readonly BodyPath[]): Json {
  const found = findRouteTags(body, places);
  return found.length === 0 ? body : withoutRouteTags(body, found);
}
