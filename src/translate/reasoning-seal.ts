import { createHmac, timingSafeEqual } from "node:crypto";
import type { ReasoningField } from "./hub.js";
import type { ReasoningSeal } from "./types.js";

const FIELD_CODES: Readonly<Record<ReasoningField, string>> = { reasoning_content: "rc", reasoning: "r" };
const FIELDS: Readonly<Record<string, ReasoningField>> = { rc: "reasoning_content", r: "reasoning" };
/** The first part of every signature and envelope; a dot follows, which base64 (Anthropic's signatures, OpenAI's encrypted reasoning) never holds. */
export const SEAL_PREFIX = "gw1";

/**
 * Signatures and envelopes for reasoning the gateway turned into a thinking block or a reasoning item (SPEC 10
 * rule 4): an HMAC-SHA256 under a per-install secret, so a block the gateway made is told apart from Anthropic's own
 * (which must reach Anthropic untouched) and from a forgery, and the upstream field it came from travels with it.
 * `gw1.<field>.<mac>` for a signature; `gw1.<field>.<text>.<mac>` (base64url) for an envelope.
 */
export function createReasoningSeal(secret: Buffer): ReasoningSeal {
  const mac = (kind: string, code: string, text: string) => createHmac("sha256", secret).update(`${kind}\0${code}\0${text}`).digest();
  const same = (expected: Buffer, given: string) => {
    const presented = Buffer.from(given, "base64url");
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  };
  return {
    sign: (text, field) => `${SEAL_PREFIX}.${FIELD_CODES[field]}.${mac("sig", FIELD_CODES[field], text).toString("base64url")}`,
    verify(text, signature) {
      const [prefix, code, given, extra] = signature.split(".");
      if (prefix !== SEAL_PREFIX || extra !== undefined || !code || !given || !Object.hasOwn(FIELDS, code)) return undefined;
      return same(mac("sig", code, text), given) ? FIELDS[code] : undefined;
    },
    seal(text, field) {
      const code = FIELD_CODES[field];
      return `${SEAL_PREFIX}.${code}.${Buffer.from(text).toString("base64url")}.${mac("env", code, text).toString("base64url")}`;
    },
    marks: (value) => value.startsWith(`${SEAL_PREFIX}.`),
    open(envelope) {
      const [prefix, code, body, given, extra] = envelope.split(".");
      if (prefix !== SEAL_PREFIX || extra !== undefined || !code || body === undefined || !given || !Object.hasOwn(FIELDS, code)) return undefined;
      const text = Buffer.from(body, "base64url").toString("utf8");
      return same(mac("env", code, text), given) ? { text, field: FIELDS[code]! } : undefined;
    },
  };
}
