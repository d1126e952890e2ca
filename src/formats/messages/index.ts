import type { ErrorFields } from "../../errors/index.js";
import { systemWithoutBillingLines } from "./system-prompt.js";
import { promptTooLong } from "../../translate/context-overflow.js";
import type { UpstreamErrorRead } from "../../translate/upstream-error-reply.js";
import { isArray, isPositiveInteger, isString, MODEL_AND_MESSAGES, serverSentEvents, streamsWhenAsked } from "../fields.js";
import { applyBetaPolicy } from "./beta-policy.js";
import type { FormatClaim, PassthroughQuirks, WireFormat } from "../format-types.js";
import { onFirstUse } from "../on-first-use.js";
import type { FieldRule } from "../types.js";
import { messagesFacts } from "./facts.js";
import { messagesFamily, messagesUsage } from "./family.js";

const MESSAGES_RULES: readonly FieldRule[] = [
  ["model", "a string", isString],
  ["max_tokens", "an integer greater than 0", isPositiveInteger],
  ["messages", "an array", isArray],
];

const GENERATE: FormatClaim = { kind: "generate", rules: MESSAGES_RULES };
const COUNT: FormatClaim = { kind: "count", rules: MODEL_AND_MESSAGES };

/**
 * A context overflow reads as Anthropic words it, a 400 `invalid_request_error` "prompt is too long: N tokens > M
 * maximum", which is what Claude Code compacts on (SPEC 11, What today's tools need).
 */
function anthropicWording({ fields, overflow }: UpstreamErrorRead): ErrorFields {
  if (!overflow) return fields;
  return { ...fields, status: 400, type: "invalid_request_error", message: promptTooLong(overflow, fields.message) };
}

/**
 * What a messages request sent as it came changes for a server's kind (SPEC 11, Kinds). A kind that takes every beta
 * and reads Claude Code's billing line (first-party Anthropic, generic) gets it as it came. Any other gets only the
 * betas its kind accepts, a withheld beta's body fields left out with it (`applyBetaPolicy`), and no billing line,
 * whose per-turn hash would defeat its prompt cache. A translated request to a messages upstream needs none of this:
 * it is written from the hub, which has no beta field, and goes without the client's `anthropic-*` headers.
 */
const kindQuirks: PassthroughQuirks = {
  applies: (quirks) => quirks.betas !== "all" || !quirks.billingHeader,
  apply(quirks, headers, body) {
    const policy = applyBetaPolicy(quirks, headers["anthropic-beta"], body);
    if (policy.header === undefined) delete headers["anthropic-beta"];
    else headers["anthropic-beta"] = policy.header;
    const system = quirks.billingHeader ? policy.body.system : systemWithoutBillingLines(policy.body.system);
    if (system !== policy.body.system) return { ...policy.body, system };
    return policy.bodyChanged ? policy.body : undefined;
  },
};

/** Anthropic Messages (`POST .../v1/messages` and `.../v1/messages/count_tokens`). */
export const messagesFormat: WireFormat = {
  name: "messages",
  family: messagesFamily,
  claim(method, rest) {
    if (method !== "POST") return undefined;
    return rest === "/v1/messages" ? GENERATE : rest === "/v1/messages/count_tokens" ? COUNT : undefined;
  },
  streams: streamsWhenAsked,
  framing: serverSentEvents,
  generatePath: () => "/v1/messages",
  usage: messagesUsage,
  errors: messagesFamily.errors,
  facts: messagesFacts,
  translators: onFirstUse(async () => {
    const { messagesClient, messagesUpstream } = await import("./translators.js");
    return { client: messagesClient, upstream: messagesUpstream };
  }),
  translatesInto: true,
  echo: onFirstUse(async () => (await import("./echo.js")).messagesEcho),
  count: { request: (body) => body, reply: (tokens) => ({ input_tokens: tokens }) },
  startsEarly: true,
  wordUpstreamError: anthropicWording,
  passthroughQuirks: kindQuirks,
};
