import { readFileSync } from "node:fs";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { contextOverflowOf } from "../src/translate/context-overflow.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { chatSse, chunk, startFakeUpstream, type ScriptedReply } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";

/**
 * SPEC 11, What today's tools need: a chat server's context-length error reaches Claude Code and Codex in the words
 * they recover from, through the real server, read by the official SDKs. The servers' wordings are fixtures with
 * their provenance.
 */

interface Case {
  server: string;
  status: number;
  body: unknown;
  tokens: number | null;
  maximum: number | null;
  /** The part of `tokens` asked for as output, where the server says it apart. */
  output: number | null;
}

const { cases } = JSON.parse(readFileSync(new URL("fixtures/context-overflow-errors.json", import.meta.url), "utf8")) as { cases: Case[] };

/** The upstream's message as the fixture's body says it. */
const messageOf = (body: unknown): string => {
  const error = (body as { error?: unknown; message?: string }).error;
  return typeof error === "string" ? error : ((error as { message?: string } | undefined)?.message ?? (body as { message: string }).message);
};

/**
 * What Claude Code must read for the case: where the prompt alone fits the window, Anthropic's words for an output
 * limit too large (Claude Code retries with a smaller one); else its words for a prompt too long (it compacts).
 */
function claudeWords(c: Case): string {
  if (c.tokens === null) return `prompt is too long: ${messageOf(c.body)}`;
  if (c.output !== null && c.tokens - c.output < c.maximum!) return `input length and \`max_tokens\` exceed context limit: ${c.tokens - c.output} + ${c.output} > ${c.maximum}, decrease input length or \`max_tokens\` and try again`;
  return `prompt is too long: ${c.tokens} tokens > ${c.maximum} maximum`;
}

const opened = closeAfterEach();

/** A gateway over one chat-only upstream that answers every call with `reply`. */
async function chatOnly(reply: (request: { body: Record<string, unknown> | undefined }) => ScriptedReply) {
  const upstream = opened(await startFakeUpstream({ script: reply }));
  const gateway = opened(await startTestGateway(undefined, { file: { upstreams: { local: { url: upstream.url, formats: ["chat"], key: "none", retries: 0 } } } }));
  return {
    anthropic: new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 }),
    openai: new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 }),
  };
}

/** What either SDK's error says: the status, the body it read, and OpenAI's `code`. */
interface SdkError {
  status: number;
  error: unknown;
  code?: string | null;
}

async function caught(promise: Promise<unknown>): Promise<SdkError> {
  try {
    await promise;
  } catch (error) {
    return error as SdkError;
  }
  throw new Error("the request succeeded");
}

describe("context-length errors in each server's words are read with their numbers", () => {
  it.each(cases.map((c) => [c.server, c] as const))("%s", (_server, c) => {
    const error = typeof (c.body as { error?: unknown }).error === "object" ? ((c.body as { error: Record<string, unknown> }).error) : undefined;
    expect(contextOverflowOf(c.status, messageOf(c.body), undefined, error)).toEqual({ tokens: c.tokens ?? undefined, maximum: c.maximum ?? undefined, output: c.output ?? undefined });
  });

  it("a rate limit or an overload is never an overflow, whatever its words", () => {
    expect(contextOverflowOf(429, "ThrottlingException: Too many tokens, please wait before trying again.", null)).toBeUndefined();
    expect(contextOverflowOf(503, "The context window is busy", null)).toBeUndefined();
    expect(contextOverflowOf(400, "Invalid 'messages' type: expected array", null)).toBeUndefined();
  });
});

describe("a chat server's context-length error on a translated route (SPEC 11)", () => {
  it.each(cases.map((c) => [c.server, c] as const))("%s: Claude Code reads `prompt is too long`, Codex `context_length_exceeded`", async (_server, c) => {
    const { anthropic, openai } = await chatOnly(() => ({ status: c.status, json: c.body }));
    const messages = await caught(anthropic.messages.create({ model: "m", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }));
    expect(messages).toBeInstanceOf(Anthropic.BadRequestError);
    expect(messages.error).toEqual({ type: "error", error: { type: "invalid_request_error", message: claudeWords(c) } });
    const responses = await caught(openai.responses.create({ model: "m", input: "hi" }));
    expect(responses).toBeInstanceOf(OpenAI.BadRequestError);
    expect(responses.code).toBe("context_length_exceeded");
    expect(responses.error).toMatchObject({ type: "invalid_request_error", code: "context_length_exceeded", message: messageOf(c.body) });
  });

  it("refused before the stream started, a streamed request gets the same answer", async () => {
    const c = cases.find((one) => one.server === "llamacpp")!;
    const { anthropic, openai } = await chatOnly(() => ({ status: c.status, json: c.body }));
    const messages = await caught(anthropic.messages.create({ model: "m", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }] }));
    expect(messages.status).toBe(400);
    expect(messages.error).toEqual({ type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 9000 tokens > 8192 maximum" } });
    const responses = await caught(openai.responses.create({ model: "m", input: "hi", stream: true }));
    expect(responses.status).toBe(400);
    expect(responses.code).toBe("context_length_exceeded");
  });

  const objectErrors = cases.filter((c) => typeof (c.body as { error?: unknown }).error === "object");
  it.each(objectErrors.map((c) => [c.server, c] as const))("%s: inside a stream that has started, it is the format's error event with the same words", async (_server, c) => {
    const error = (c.body as { error: unknown }).error;
    const { anthropic, openai } = await chatOnly(() => ({ chunks: [chatSse([chunk({ role: "assistant", content: "" }), chunk({ content: "Let me" }), { error }], false)] }));
    const stream = anthropic.messages.stream({ model: "m", max_tokens: 100, messages: [{ role: "user", content: "hi" }] });
    const failure = await caught(stream.finalMessage());
    expect(failure.error).toEqual({ type: "error", error: { type: "invalid_request_error", message: claudeWords(c) } });
    const events: { type: string; response?: { error?: unknown } }[] = [];
    for await (const event of await openai.responses.create({ model: "m", input: "hi", stream: true })) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: "response.failed", response: { status: "failed", error: { code: "context_length_exceeded", message: messageOf(c.body) } } });
  });

  it("rate limits and overloads keep SPEC 10 rule 5's types, and never read as a long prompt", async () => {
    const { anthropic } = await chatOnly((request) =>
      request.body?.messages && JSON.stringify(request.body.messages).includes("busy")
        ? { status: 503, json: { error: { message: "The context window is busy, retry" } } }
        : { status: 429, json: { error: { message: "Too many tokens, please wait before trying again." } } },
    );
    const limited = await caught(anthropic.messages.create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }));
    expect([limited.status, limited.error]).toEqual([429, { type: "error", error: { type: "rate_limit_error", message: "Too many tokens, please wait before trying again." } }]);
    const busy = await caught(anthropic.messages.create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "busy" }] }));
    expect([busy.status, busy.error]).toEqual([503, { type: "error", error: { type: "overloaded_error", message: "The context window is busy, retry" } }]);
  });
});
