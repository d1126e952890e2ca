import { createHmac, timingSafeEqual } from "node:crypto";
import type { ReasoningField } from "./hub.js";
import type { ReasoningSeal } from "./types.js";

const FIELD_CODES: Readonly<Record<ReasoningField, string>> = { reasoning_content: "rc", reasoning: "r" };
const FIELDS: Readonly<Record<string, ReasoningField>> = { rc: "reasoning_content", r: "reasoning" };
/** The code of a conversation summary's envelope (a Responses `compaction` item, SPEC 11). */
const SUMMARY_CODE = "cs";
/** The first part of every signature and envelope; a dot follows, which base64 (Anthropic's signatures, OpenAI's encrypted reasoning) never holds. */
export const SEAL_PREFIX = "gw1";

/**
 * What each MAC is for, signed with it: a reasoning signature, a reasoning envelope and a summary envelope can never
 * be taken for one another, even when their text and code are the same.
 */
type Purpose = "sig" | "env" | "summary";

/**
 * Signatures and envelopes for what the gateway hands to clients and reads back later (SPEC 10 rule 4, SPEC 11):
 * an HMAC-SHA256 under a per-install secret, so a block the gateway made is told apart from a provider's own (which
 * must reach that provider untouched) and from a forgery or an edit. Reasoning carries the upstream field it came
 * from; a Codex compaction item carries the summary of the conversation it replaced.
 * `gw1.<code>.<mac>` for a signature; `gw1.<code>.<text>.<mac>` (base64url) for an envelope.
 */
export function createReasoningSeal(secret: Buffer): ReasoningSeal {
  const mac = (purpose: Purpose, code: string, text: string) => createHmac("sha256", secret).update(`${purpose}\0${code}\0${text}`).digest();
  const same = (expected: Buffer, given: string) => {
    const presented = Buffer.from(given, "base64url");
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  };
  const envelope = (purpose: Purpose, code: string, text: string) =>
    `${SEAL_PREFIX}.${code}.${Buffer.from(text).toString("base64url")}.${mac(purpose, code, text).toString("base64url")}`;
  /** The code and text of an envelope made for `purpose` with one of `codes`; undefined for anything else. */
  const opened = (purpose: Purpose, codes: (code: string) => boolean, value: string) => {
    const [prefix, code, body, given, extra] = value.split(".");
    if (prefix !== SEAL_PREFIX || extra !== undefined || !code || body === undefined || !given || !codes(code)) return undefined;
    const text = Buffer.from(body, "base64url").toString("utf8");
    return same(mac(purpose, code, text), given) ? { code, text } : undefined;
  };
  const isField = (code: string) => Object.hasOwn(FIELDS, code);
  return {
    sign: (text, field) => `${SEAL_PREFIX}.${FIELD_CODES[field]}.${mac("sig", FIELD_CODES[field], text).toString("base64url")}`,
    verify(text, signature) {
      const [prefix, code, given, extra] = signature.split(".");
      if (prefix !== SEAL_PREFIX || extra !== undefined || !code || !given || !isField(code)) return undefined;
      return same(mac("sig", code, text), given) ? FIELDS[code] : undefined;
    },
    seal: (text, field) => envelope("env", FIELD_CODES[field], text),
    marks: (value) => value.startsWith(`${SEAL_PREFIX}.`),
    open(value) {
      const found = opened("env", isField, value);
      return found ? { text: found.text, field: FIELDS[found.code]! } : undefined;
    },
    sealSummary: (text) => envelope("summary", SUMMARY_CODE, text),
    openSummary: (value) => opened("summary", (code) => code === SUMMARY_CODE, value)?.text,
  };
}
