import { GoogleGenAI } from "@google/genai";
import { afterEach, describe, expect, it } from "vitest";
import { LOCAL_KEY, startTestGateway, useGatewayPair, type TestGateway } from "./helpers/gateway.js";

/** The official genai SDK (2.32.0, the newest for Node 20) through the gateway, to a real-shaped fake and to echo. */
const genai = (gateway: TestGateway, path = "/gemini") => new GoogleGenAI({ apiKey: LOCAL_KEY, httpOptions: { baseUrl: `${gateway.url}${path}` } });

describe("@google/genai through the gateway to a fake upstream", () => {
  const pair = useGatewayPair();

  it("generateContent, countTokens and models.list", async () => {
    const { gateway, upstream } = await pair.start();
    const ai = genai(gateway);
    const reply = await ai.models.generateContent({ model: "gemini-fake", contents: "hello there" });
    expect(reply.text).toBe("fake: hello there");
    expect(reply.usageMetadata).toMatchObject({ promptTokenCount: 11, candidatesTokenCount: 3 });
    expect(upstream.last().url).toBe("/gemini/v1beta/models/gemini-fake:generateContent");
    expect(upstream.last().headers["x-goog-api-key"]).toBe("sk-upstream-test-0123456789abcdef");
    expect((await ai.models.countTokens({ model: "gemini-fake", contents: "hello" })).totalTokens).toBe(11);
    const names: string[] = [];
    for await (const model of await ai.models.list()) names.push(model.name ?? "");
    expect(names).toEqual(["models/gemini-fake"]);
  });

  it("generateContentStream: text arrives piece by piece, as the upstream sends it", async () => {
    const { gateway, upstream } = await pair.start();
    upstream.behaviour.chunkDelayMs = 80;
    const stream = await genai(gateway).models.generateContentStream({ model: "gemini-fake", contents: "one two three" });
    const arrivals: { text: string; at: number }[] = [];
    for await (const chunk of stream) arrivals.push({ text: chunk.text ?? "", at: performance.now() });
    expect(arrivals.map((a) => a.text)).toEqual(["fake: ", "one ", "two ", "three"]);
    // progressive: the last piece came well after the first, not all at once at the end
    expect(arrivals[3]!.at - arrivals[0]!.at).toBeGreaterThan(150);
    expect(upstream.last().url).toBe("/gemini/v1beta/models/gemini-fake:streamGenerateContent?alt=sse");
  });

  it("works with the bare origin as base URL (/v1beta) and with a configured segment", async () => {
    const { gateway, upstream } = await pair.start({ flags: { geminiSegment: "gem2" } });
    expect((await genai(gateway, "").models.generateContent({ model: "m", contents: "bare" })).text).toBe("fake: bare");
    expect(upstream.last().url).toBe("/gem2/v1beta/models/m:generateContent");
    expect((await genai(gateway, "/gem2").models.generateContent({ model: "m", contents: "seg" })).text).toBe("fake: seg");
    const old = await fetch(`${gateway.url}/gemini/v1beta/models/m:generateContent`, { method: "POST", headers: { "x-goog-api-key": LOCAL_KEY } });
    expect(old.status).toBe(404);
    expect(await old.json()).toMatchObject({ error: { type: "not_found_error" } });
  });
});

describe("@google/genai through the gateway to the echo upstream", () => {
  let gateway: TestGateway | undefined;
  afterEach(async () => gateway?.close(0));

  it("answers generate, stream, countTokens and the model list offline", async () => {
    gateway = await startTestGateway("echo");
    const ai = genai(gateway);
    expect((await ai.models.generateContent({ model: "echo-1", contents: "hi gemini", config: { systemInstruction: "be brief" } })).text).toBe("echo: hi gemini");
    let streamed = "";
    let pieces = 0;
    for await (const chunk of await ai.models.generateContentStream({ model: "echo-1", contents: "stream me please" })) {
      streamed += chunk.text ?? "";
      pieces++;
    }
    expect(streamed).toBe("echo: stream me please");
    expect(pieces).toBe(4);
    expect((await ai.models.countTokens({ model: "echo-1", contents: "four" })).totalTokens).toBeGreaterThan(0);
    const names: string[] = [];
    for await (const model of await ai.models.list()) names.push(model.name ?? "");
    expect(names).toEqual(["models/echo-1", "models/echo-mini"]);
    await expect.poll(() => gateway!.records.filter((r) => r.family === "gemini" && r.model === "echo-1" && (r.outputTokens ?? 0) > 0).length).toBe(2);
  });
});
