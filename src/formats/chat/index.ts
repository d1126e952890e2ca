import type { ErrorFields } from "../../errors/index.js";
import type { UpstreamErrorRead } from "../../translate/upstream-error-reply.js";
import { MODEL_AND_MESSAGES, serverSentEvents, streamsWhenAsked } from "../fields.js";
import type { FormatClaim, WireFormat } from "../format-types.js";
import { onFirstUse } from "../on-first-use.js";
import { chatFacts } from "./facts.js";
import { chatFamily } from "./family.js";
import { chatUsage } from "./usage.js";

const GENERATE: FormatClaim = { kind: "generate", rules: MODEL_AND_MESSAGES };

/** OpenAI's clients keep the upstream's own error type and code where it gave them (SPEC 10 rule 5). */
export const openAiWording = ({ fields, upstreamType, upstreamCode }: UpstreamErrorRead): ErrorFields => ({
  ...fields,
  type: upstreamType ?? fields.type,
  code: upstreamCode ?? fields.code,
});

/** OpenAI Chat Completions: the translation hub's own language (`POST /v1/chat/completions`). */
export const chatFormat: WireFormat = {
  name: "chat",
  family: chatFamily,
  claim: (method, rest) => (method === "POST" && rest === "/v1/chat/completions" ? GENERATE : undefined),
  streams: streamsWhenAsked,
  framing: serverSentEvents,
  generatePath: () => "/v1/chat/completions",
  usage: chatUsage,
  errors: chatFamily.errors,
  facts: chatFacts,
  translators: onFirstUse(async () => {
    const [{ chatClient }, { chatUpstream }] = await Promise.all([import("./chat-client.js"), import("./chat-upstream.js")]);
    return { client: chatClient, upstream: chatUpstream };
  }),
  translatesInto: true,
  echo: onFirstUse(async () => (await import("./echo.js")).chatEcho),
  count: undefined,
  startsEarly: false,
  wordUpstreamError: openAiWording,
  passthroughQuirks: undefined,
};
