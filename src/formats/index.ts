import type { IncomingHttpHeaders } from "node:http";
import { chatFormat } from "./chat/index.js";
import { FAMILIES } from "./families.js";
import type { Family } from "./family-types.js";
import type { Endpoint, WireFormat } from "./format-types.js";
import { geminiFormat } from "./gemini/index.js";
import { messagesFormat } from "./messages/index.js";
import type { Format } from "./names.js";
import { responsesFormat } from "./responses/index.js";
import type { Segments, Usage } from "./types.js";

export type * from "./types.js";
export type * from "./family-types.js";
export type * from "./format-types.js";
export { FORMAT_NAMES } from "./names.js";
export { FAMILIES, FAMILY_NAMES, familyNamed, familyOf } from "./families.js";
export { chatFamily } from "./chat/family.js";
export { acceptsResponsesSocket } from "./responses/socket.js";

/** The registry: one line per wire format, in the order a translated request picks the first one an upstream serves (SPEC 10, Translation). */
export const FORMATS: readonly WireFormat[] = [chatFormat, messagesFormat, responsesFormat, geminiFormat];

const BY_NAME: ReadonlyMap<string, WireFormat> = new Map(FORMATS.map((format) => [format.name, format]));

/** The descriptor of a format named in the configuration (an upstream's `formats`). */
export const formatNamed = (name: Format): WireFormat => BY_NAME.get(name)!;

/** Each family's formats, in registry order: the calls they claim in its namespace. */
const FORMATS_OF: ReadonlyMap<Family, readonly WireFormat[]> = new Map(FAMILIES.map((family) => [family, FORMATS.filter((format) => format.family === family)]));

/** Usage before anything was read: each count stays undefined until the upstream reports it. */
export const noUsage = (): Usage => ({ inputTokens: undefined, outputTokens: undefined, cacheReadTokens: undefined, cacheWriteTokens: undefined });

/**
 * The endpoint at this method and (normalised) path: the first family that claims it, in `FAMILIES` order, then the
 * format of that family that claims it as a model call or a count; a model list or anything else when none does.
 */
export function claimPath(method: string, path: string, headers: IncomingHttpHeaders, segments: Segments): Endpoint | undefined {
  for (const family of FAMILIES) {
    const found = family.paths.claim(method, path, headers, segments);
    if (!found) continue;
    for (const format of FORMATS_OF.get(family)!) {
      const call = format.claim(method, found.rest);
      if (call) return { family, format, kind: call.kind, rest: found.rest, rules: call.rules, pathModel: found.pathModel };
    }
    return { family, format: undefined, kind: found.lists ? "models" : "other", rest: found.rest, rules: undefined, pathModel: found.pathModel };
  }
  return undefined;
}
