import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyFingerprint } from "../src/running/key-fingerprint.js";
import { LOCAL_KEY, startTestGateway, type TestGateway } from "./helpers/gateway.js";

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway("echo");
});
afterAll(() => gateway.close(0));

describe("the echo upstream, through the gateway", () => {
  const openai = () => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
  const anthropic = () => new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });

  it("reports itself as echo in /health, its kind echo too (issue 47 item 20)", async () => {
    const health = await (await fetch(`${gateway.url}/health`)).json();
    expect(health).toEqual({
      status: "ok",
      version: "0.0.0-test",
      upstream: "echo",
      pid: process.pid,
      upstreams: [{ name: "default", kind: "echo", url: "echo", formats: ["chat", "responses", "messages", "gemini"] }],
      // tells this user's gateway from another's (issue 26, item 4); never the key
      keyFingerprint: keyFingerprint(LOCAL_KEY),
    });
  });

  it("answers chat completions, streaming and not, with usage", async () => {
    const reply = await openai().chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: "ping pong" }] });
    expect(reply.choices[0]!.message.content).toBe("echo: ping pong");
    expect(reply.usage!.completion_tokens).toBeGreaterThan(0);
    const stream = await openai().chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: "ping pong" }], stream: true, stream_options: { include_usage: true } });
    let text = "";
    let usage;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? "";
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe("echo: ping pong");
    expect(usage?.prompt_tokens).toBeGreaterThan(0);
  });

  it("answers messages, streaming and not", async () => {
    const reply = await anthropic().messages.create({ model: "echo-1", max_tokens: 20, messages: [{ role: "user", content: [{ type: "text", text: "block text" }] }] });
    expect(reply.content).toEqual([{ type: "text", text: "echo: block text" }]);
    const final = await anthropic().messages.stream({ model: "echo-1", max_tokens: 20, messages: [{ role: "user", content: "streamed" }] }).finalMessage();
    expect(final.content).toEqual([{ type: "text", text: "echo: streamed" }]);
    expect(final.usage.input_tokens).toBeGreaterThan(0);
  });

  it("answers the Responses API, streaming and not (Codex uses only this)", async () => {
    const reply = await openai().responses.create({ model: "echo-1", input: "codex says hi" });
    expect(reply.output_text).toBe("echo: codex says hi");
    const stream = await openai().responses.create({ model: "echo-1", input: [{ role: "user", content: "streamed input" }], stream: true });
    let text = "";
    let completed = false;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") completed = true;
    }
    expect(text).toBe("echo: streamed input");
    expect(completed).toBe(true);
  });

  it("answers Codex's compaction as OpenAI does: the compact endpoint with the user messages and one compaction item, a compaction_trigger with exactly that item", async () => {
    const user = { type: "message" as const, role: "user" as const, content: [{ type: "input_text" as const, text: "fix the build" }] };
    const said = { type: "message" as const, role: "assistant" as const, id: "msg_1", status: "completed" as const, content: [{ type: "output_text" as const, text: "done", annotations: [] }] };
    const compacted = await openai().responses.compact({ model: "echo-1", input: [user, said] });
    expect(compacted.object).toBe("response.compaction");
    expect(compacted.output).toEqual([user, { id: expect.stringMatching(/^cmp_echo/), type: "compaction", encrypted_content: Buffer.from("echo: fix the build").toString("base64") }]);
    expect(compacted.usage.output_tokens).toBeGreaterThan(0);

    const trigger = [user, said, { type: "compaction_trigger" }] as unknown as OpenAI.Responses.ResponseInput;
    const whole = await openai().responses.create({ model: "echo-1", input: trigger });
    expect(whole.output).toEqual([{ id: expect.stringMatching(/^cmp_echo/), type: "compaction", encrypted_content: Buffer.from("echo: fix the build").toString("base64") }]);
    const done: unknown[] = [];
    for await (const event of await openai().responses.create({ model: "echo-1", input: trigger, stream: true })) {
      if (event.type === "response.output_item.done") done.push(event.item);
      expect(event.type).not.toBe("response.output_text.delta");
    }
    expect(done).toEqual([{ id: expect.stringMatching(/^cmp_echo/), type: "compaction", encrypted_content: Buffer.from("echo: fix the build").toString("base64") }]);
  });

  it("lists models in both shapes and counts tokens", async () => {
    const chatModels = [];
    for await (const model of openai().models.list()) chatModels.push(model.id);
    expect(chatModels).toContain("echo-1");
    const messageModels = [];
    for await (const model of anthropic().models.list()) messageModels.push(model.id);
    expect(messageModels).toContain("echo-1");
    const count = await anthropic().messages.countTokens({ model: "echo-1", messages: [{ role: "user", content: "twelve chars" }] });
    expect(count.input_tokens).toBe(3);
  });
});
