import { describe, expect, it } from "vitest";
import { claimPath } from "../src/formats/index.js";
import { CheckedAsLatin1, ClientRequest } from "../src/request/client-request.js";
import { LOCAL_KEY, useGatewayPair } from "./helpers/gateway.js";
import { messagesHeaders, rawRequest } from "./helpers/http.js";

// A passthrough body with bytes beyond ASCII is checked (SPEC 3.5) from its latin1 text and parsed as UTF-8 only
// when something reads its values (src/server/stages/read-request.ts): the same bodies pass and fail as before, the
// same bytes go upstream, and what the gateway reads (the model, the facts) is the body's own text.

const pair = useGatewayPair();
const PATH = "/anthropic/v1/messages";
const post = (url: string, body: Buffer | string) => rawRequest(url, { method: "POST", path: PATH, headers: messagesHeaders(LOCAL_KEY), body });

/** What the checks answered before: 200 when the body parses as UTF-8 into an object with the messages rules met. */
function passesAsUtf8(bytes: Buffer): boolean {
  try {
    const body: unknown = JSON.parse(bytes.toString("utf8"));
    if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
    const { model, max_tokens: maxTokens, messages } = body as Record<string, unknown>;
    return typeof model === "string" && Array.isArray(messages) && typeof maxTokens === "number" && Number.isInteger(maxTokens) && maxTokens > 0;
  } catch {
    return false;
  }
}

/** A Claude-Code-like turn: a file read back with its line numbers after an arrow, some CJK and an emoji. */
const turn = (i: number) => ({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: `     ${i}→const naïve = "日本語 🚀"; // ${"x".repeat(200)}` }] });

describe("a passthrough body beyond ASCII, checked without being parsed as UTF-8", () => {
  it("goes upstream byte for byte, at 1.5 MB (decoded in pieces) and small", async () => {
    const { upstream, gateway } = await pair.start();
    for (const turns of [2, 6_000]) {
      const bytes = Buffer.from(JSON.stringify({ model: "m", max_tokens: 8, messages: Array.from({ length: turns }, (_, i) => turn(i)) }));
      const res = await post(gateway.url, bytes);
      expect(res.status).toBe(200);
      expect(upstream.last().raw.equals(bytes)).toBe(true);
    }
    expect(upstream.received[1]!.raw.length).toBeGreaterThan(1_500_000);
  });

  it("passes and refuses exactly what the UTF-8 parse did, cut at every byte offset", async () => {
    const { upstream, gateway } = await pair.start();
    const whole = Buffer.from('{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"é→日本🚀"}]}');
    for (let end = 0; end <= whole.length; end++) {
      const bytes = whole.subarray(0, end);
      const res = await post(gateway.url, bytes);
      expect({ end, status: res.status }).toEqual({ end, status: passesAsUtf8(bytes) ? 200 : 400 });
    }
    expect(upstream.received).toHaveLength(1);
  });

  it("refuses what JSON refuses with bytes beyond ASCII around: a raw control character in a string, such a byte outside one, a byte-order mark", async () => {
    const { upstream, gateway } = await pair.start();
    const bodies = [
      Buffer.from('{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"é\u0001"}]}'),
      Buffer.from('{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"é"}]}é'),
      Buffer.from('{"model":"m","max_tokens":8,é"messages":[]}'),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"é"}]}')]),
    ];
    for (const bytes of bodies) {
      expect(passesAsUtf8(bytes)).toBe(false);
      const res = await post(gateway.url, bytes);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toEqual({ type: "error", error: { type: "invalid_request_error", message: "The request body is not valid JSON. Send a JSON object." } });
    }
    // Bytes that are not UTF-8 inside a string parse (as U+FFFD), as they did, and go upstream as they came.
    const notUtf8 = Buffer.concat([Buffer.from('{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"'), Buffer.from([0xff, 0xc3]), Buffer.from('"}]}')]);
    expect(passesAsUtf8(notUtf8)).toBe(true);
    expect((await post(gateway.url, notUtf8)).status).toBe(200);
    expect(upstream.last().raw.equals(notUtf8)).toBe(true);
  });

  it("reads a model named beyond ASCII as its own text: the alias applies and the record names it", async () => {
    const { upstream, gateway } = await pair.start({ file: { models: { "modèle-日本": "m" } } });
    const res = await post(gateway.url, JSON.stringify({ model: "modèle-日本", max_tokens: 8, messages: [{ role: "user", content: "→" }] }));
    expect(res.status).toBe(200);
    expect(upstream.last().body).toMatchObject({ model: "m", messages: [{ role: "user", content: "→" }] });
    expect(gateway.records.at(-1)!.model).toBe("modèle-日本");
  });
});

describe("a request whose body is not parsed yet", () => {
  const checkedOnly = (body: unknown) => {
    const bytes = Buffer.from(JSON.stringify(body));
    const endpoint = claimPath("POST", PATH, {}, { messages: "anthropic", gemini: "gemini" })!;
    return new ClientRequest(endpoint, "", {}, bytes, new CheckedAsLatin1(JSON.parse(bytes.toString("latin1")) as Record<string, unknown>), "m", false);
  };

  it("finds a route tag opening its first user message, its name read as UTF-8, and none that a later text only names", () => {
    const tagged = checkedOnly({ model: "m", max_tokens: 8, messages: [{ role: "user", content: "  <gateway-route>revue→日本</gateway-route> Review this →" }] });
    expect(tagged.routeTags().map((tag) => [tag.name, tag.rest])).toEqual([["revue→日本", "Review this →"]]);
    const named = checkedOnly({
      model: "m",
      max_tokens: 8,
      messages: [
        { role: "user", content: "Read route-tag.ts →" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { path: "route-tag.ts" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "const TAG = /^\\s*<gateway-route>([^<]*)<\\/gateway-route>/; // →" }] },
      ],
    });
    expect(named.routeTags()).toEqual([]);
    expect(named.withoutRouteTags()).toBeUndefined();
  });


  it("parses it as UTF-8 the first time it is read, and answers questions about it", () => {
    const body = { model: "m", max_tokens: 8, tools: [{ name: "Read→日本", input_schema: {} }], messages: [{ role: "user", content: "🚀" }] };
    const endpoint = claimPath("POST", PATH, {}, { messages: "anthropic", gemini: "gemini" })!;
    const request = new ClientRequest(endpoint, "", {}, Buffer.from(JSON.stringify(body)), new CheckedAsLatin1(JSON.parse(Buffer.from(JSON.stringify(body)).toString("latin1")) as Record<string, unknown>), "m", false);
    expect(request.json).toEqual(body);
    expect(request.json).toBe(request.json);
    expect(request.tools()).toEqual(["Read→日本"]);
  });
});
