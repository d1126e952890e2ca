import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { cliEnv, runCli } from "./helpers/cli.js";
import { FAKE_UPSTREAM_KEY } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, tempConfigDir, useGatewayPair } from "./helpers/gateway.js";
import { messagesHeaders, rawRequest } from "./helpers/http.js";

const models = { "claude-sonnet-4-5*": "anthropic/claude-sonnet-4.5", "gpt-4o": "openai/gpt-4o-2024-11-20", "gem-alias": "gemini-fake", "claude-*": "never-this-one" };

describe("model aliases", () => {
  const pair = useGatewayPair();

  it("rewrites only the model's bytes: key order, spacing, escapes and number spelling stay as sent", async () => {
    const { gateway, upstream } = await pair.start({ file: { models } });
    const body = `{ "messages" : [{"role":"user","content":"h\\u00e9 \\"model\\": \\"x\\""}],\n  "model":"claude-sonnet-4-5-20250929", "max_tokens": 1.0e3, "metadata": {"model": "claude-sonnet-4-5-x"} }`;
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body });
    expect(res.status).toBe(200);
    expect(upstream.last().raw.toString("utf8")).toBe(body.replace('"model":"claude-sonnet-4-5-20250929"', '"model":"anthropic/claude-sonnet-4.5"'));
    await expect.poll(() => gateway.records.at(-1)).toMatchObject({ model: "claude-sonnet-4-5-20250929", target: "anthropic/claude-sonnet-4.5" });
  });

  it("an exact key wins over patterns; unmatched requests go upstream untouched", async () => {
    const { gateway, upstream } = await pair.start({ file: { models } });
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    await openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "x" }] });
    expect(JSON.parse(upstream.last().raw.toString()).model).toBe("openai/gpt-4o-2024-11-20");
    const stream = await openai.chat.completions.create({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "x" }] });
    for await (const _chunk of stream) {
      // drain
    }
    expect(JSON.parse(upstream.last().raw.toString()).model).toBe("gpt-4o-mini");
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    await anthropic.messages.create({ model: "claude-haiku", max_tokens: 5, messages: [{ role: "user", content: "x" }] });
    expect(JSON.parse(upstream.last().raw.toString()).model).toBe("never-this-one");
  });

  it("rewrites the Gemini path's model and lists exact aliases in all three model lists", async () => {
    const { gateway, upstream } = await pair.start({ file: { models } });
    const ai = new GoogleGenAI({ apiKey: LOCAL_KEY, httpOptions: { baseUrl: `${gateway.url}/gemini` } });
    expect((await ai.models.generateContent({ model: "gem-alias", contents: "hi" })).text).toBe("fake: hi");
    expect(upstream.last().url).toBe("/gemini/v1beta/models/gemini-fake:generateContent");
    const gemini: string[] = [];
    for await (const m of await ai.models.list()) gemini.push(m.name ?? "");
    expect(gemini).toEqual(["models/gemini-fake", "models/gpt-4o", "models/gem-alias"]);
    const chat = await new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY }).models.list();
    expect(chat.data.map((m) => m.id)).toEqual(["gpt-fake", "gpt-4o", "gem-alias"]);
    const messages = await new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY }).models.list();
    expect(messages.data.map((m) => m.id)).toEqual(["claude-fake", "gpt-4o", "gem-alias"]);
  });

  it("gateway chat -m <alias> sends the target, and gateway models lists the aliases", async () => {
    const { upstream } = await pair.start();
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir({ models }), GATEWAY_UPSTREAM: upstream.url, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY });
    const chat = await runCli(["chat", "-m", "gpt-4o", "hi"], env);
    expect(chat.stdout).toBe("fake: hi\n");
    expect(JSON.parse(upstream.last().raw.toString()).model).toBe("openai/gpt-4o-2024-11-20");
    const list = await runCli(["models"], env);
    expect(list.stdout).toMatch(/^gpt-fake\s+fake\s+2023-11-14$/m);
    expect(list.stdout).toMatch(/^claude-sonnet-4-5\*\s+alias -> anthropic\/claude-sonnet-4\.5$/m);
    expect(list.stdout).toMatch(/^gpt-4o\s+alias -> openai\/gpt-4o-2024-11-20$/m);
  });
});
