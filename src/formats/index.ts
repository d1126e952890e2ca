import type { IncomingHttpHeaders } from "node:http";
import { chatFormat } from "./chat/index.js";
import { FAMILIES } from "./families.js";
import type { Family } from "./family-types.js";
import type { Endpoint, WireFormat } from "./format-types.js";
import { geminiFormat } from "./gemini/index.js";
import { messagesFormat } from "./messages/index.js";
import { addFormatName, type Format } from "./names.js";
import { responsesFormat } from "./responses/index.js";
import type { Segments, Usage } from "./types.js";

export type * from "./types.js";
export type * from "./family-types.js";
export type * from "./format-types.js";
export { FORMAT_NAMES, familyNameOf } from "./names.js";
export { FAMILIES, FAMILY_NAMES, familyNamed, familyOf } from "./families.js";
export { chatFamily } from "./chat/family.js";
export { acceptsResponsesSocket } from "./responses/socket.js";

const REGISTERED: WireFormat[] = [];
const BY_NAME = new Map<string, WireFormat>();
/** Each family's formats, in registry order: the calls they claim in its namespace. */
const FORMATS_OF = new Map<Family, WireFormat[]>(FAMILIES.map((family) => [family, []]));

/**
 * The registry: every wire format, in the order a translated request picks the first one an upstream serves (SPEC
 * 10, Translation). Everything that lists, claims, prices or routes by format asks it; nothing else lists formats.
 */
export const FORMATS: readonly WireFormat[] = REGISTERED;

/** Adds a format to the registry (and its name to `names.ts`): one line per format below, and a test's own. */
export function registerFormat(format: WireFormat): void {
  if (BY_NAME.has(format.name)) return;
  REGISTERED.push(format);
  BY_NAME.set(format.name, format);
  FORMATS_OF.get(format.family)!.push(format);
  addFormatName(format.name, { family: format.family.name, cacheInInput: format.usage.cacheInInput });
}

registerFormat(chatFormat);
registerFormat(messagesFormat);
registerFormat(responsesFormat);
registerFormat(geminiFormat);

/** The descriptor of a format named in the configuration (an upstream's `formats`) or in a record. */
export const formatNamed = (name: Format): WireFormat => BY_NAME.get(name)!;

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
