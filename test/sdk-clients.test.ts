import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { beforeEach, describe, expect, it } from "vitest";
import { FAKE_UPSTREAM_KEY, type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, useGatewayPair, type TestGateway } from "./helpers/gateway.js";

let upstream: FakeUpstream;
let gateway: TestGateway;

const pair = useGatewayPair();
beforeEach(async () => ({ upstream, gateway } = await pair.start()));

const openai = () => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });

describe("OpenAI SDK through the gateway", () => {
  it("gets a non-stream chat completion and the upstream sees its own key", async () => {
    const completion = await openai().chat.completions.create({ model: "gpt-fake", messages: [{ role: "user", content: "hello there" }] });
    expect(completion.choices[0]!.message.content).toBe("fake: hello there");
    expect(upstream.last().url).toBe("/v1/chat/completions");
    expect(upstream.last().headers.authorization).toBe(`Bearer ${FAKE_UPSTREAM_KEY}`);
    expect(JSON.stringify(upstream.last().headers)).not.toContain(LOCAL_KEY);
  });

  it("streams a chat completion chunk by chunk", async () => {
    const stream = await openai().chat.completions.create({ model: "gpt-fake", messages: [{ role: "user", content: "one two three" }], stream: true });
    const pieces: string[] = [];
    for await (const chunk of stream) {
      const content = chunk.choices[0]?.delta?.content;
      if (content) pieces.push(content);
    }
    expect(pieces).toEqual(["fake: ", "one ", "two ", "three"]);
  });

  it("lists models from the chat-style catalog", async () => {
    const models = [];
    for await (const model of openai().models.list()) models.push(model.id);
    expect(models).toEqual(["gpt-fake"]);
    expect(upstream.last().url).toBe("/v1/models");
  });
});

describe.each([
  ["the root base URL", ""],
  ["the /anthropic base URL", "/anthropic"],
])("Anthropic SDK through %s", (_name, suffix) => {
  const anthropic = () => new Anthropic({ baseURL: `${gateway.url}${suffix}`, apiKey: LOCAL_KEY, maxRetries: 0 });

  it("gets a non-stream message with x-api-key swapped upstream", async () => {
    const message = await anthropic().messages.create({ model: "claude-fake", max_tokens: 50, messages: [{ role: "user", content: "hi" }] });
    expect(message.content).toEqual([{ type: "text", text: "fake: hi" }]);
    const seen = upstream.last();
    expect(seen.url).toBe("/anthropic/v1/messages");
    expect(seen.headers["x-api-key"]).toBe(FAKE_UPSTREAM_KEY);
    // current SDKs send a newer date than 2023-06-01; it must arrive as sent
    expect(seen.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(seen.headers.authorization).toBeUndefined();
  });

  it("streams a message", async () => {
    const stream = anthropic().messages.stream({ model: "claude-fake", max_tokens: 50, messages: [{ role: "user", content: "alpha beta" }] });
    const pieces: string[] = [];
    stream.on("text", (text) => pieces.push(text));
    const final = await stream.finalMessage();
    expect(pieces).toEqual(["fake: ", "alpha ", "beta"]);
    expect(final.usage.output_tokens).toBe(3);
  });

  it("counts tokens", async () => {
    const count = await anthropic().messages.countTokens({ model: "claude-fake", messages: [{ role: "user", content: "x" }] });
    expect(count.input_tokens).toBe(11);
    expect(upstream.last().url).toBe("/anthropic/v1/messages/count_tokens");
  });

  it("lists models from the messages-style catalog", async () => {
    const models = [];
    for await (const model of anthropic().models.list()) models.push(model.id);
    expect(models).toEqual(["claude-fake"]);
    expect(upstream.last().url.split("?")[0]).toBe("/anthropic/v1/models");
  });
});
