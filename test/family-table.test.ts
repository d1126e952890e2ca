import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { decodeEvents } from "../src/sse/sse.js";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, useGatewayPair, type TestGateway } from "./helpers/gateway.js";
import type { IncomingMessage } from "node:http";
import { chunkFrames, rawPost, rawRequest, type RawResponse } from "./helpers/http.js";

/**
 * Every family walks through the same table of behaviours: what differs (paths, key header, body, error shape,
 * stream framing) is in the rows, what must hold is written once.
 */
interface FamilyRow {
  name: "chat" | "messages" | "gemini";
  path: string;
  streamPath: string;
  keyHeaders: (key: string) => Record<string, string>;
  body: Record<string, unknown>;
  streamBody: Record<string, unknown>;
  requiredField: string;
  /** The family's error body for a status, type and message. */
  errorBody: (status: number, type: string, message: string, code: string | null, param?: string | null) => unknown;
  /** One complete stream event of the family, as an upstream sends it. */
  event: string;
  /** Whether a parsed event is this family's error event. */
  isErrorEvent: (event: { event?: string | undefined; data: string }) => boolean;
}

const STATUS = { 400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 415: "INVALID_ARGUMENT", 502: "UNAVAILABLE" } as Record<number, string>;

const FAMILIES: FamilyRow[] = [
  {
    name: "chat",
    path: "/v1/chat/completions",
    streamPath: "/v1/chat/completions",
    keyHeaders: (key) => ({ authorization: `Bearer ${key}` }),
    body: { model: "gpt-fake", messages: [{ role: "user", content: "hi" }] },
    streamBody: { model: "gpt-fake", stream: true, messages: [{ role: "user", content: "hi" }] },
    requiredField: "messages",
    errorBody: (_status, type, message, code, param = null) => ({ error: { message, type, param, code } }),
    event: `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "héllo wörld" } }] })}\n\n`,
    isErrorEvent: (e) => JSON.parse(e.data).error?.type === "api_error",
  },
  {
    name: "messages",
    path: "/v1/messages",
    streamPath: "/v1/messages",
    keyHeaders: (key) => ({ "x-api-key": key, "anthropic-version": "2023-06-01" }),
    body: { model: "claude-fake", max_tokens: 10, messages: [{ role: "user", content: "hi" }] },
    streamBody: { model: "claude-fake", max_tokens: 10, stream: true, messages: [{ role: "user", content: "hi" }] },
    requiredField: "messages",
    errorBody: (_status, type, message) => ({ type: "error", error: { type, message } }),
    event: `event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "héllo" } })}\n\n`,
    isErrorEvent: (e) => e.event === "error" && JSON.parse(e.data).error?.type === "api_error",
  },
  {
    name: "gemini",
    path: "/gemini/v1beta/models/gemini-fake:generateContent",
    streamPath: "/gemini/v1beta/models/gemini-fake:streamGenerateContent?alt=sse",
    keyHeaders: (key) => ({ "x-goog-api-key": key }),
    body: { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
    streamBody: { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
    requiredField: "contents",
    errorBody: (status, _type, message) => ({ error: { code: status, message, status: STATUS[status] } }),
    event: `data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text: "héllo" }] }, index: 0 }] })}\r\n\r\n`,
    isErrorEvent: (e) => JSON.parse(e.data).error?.status === "UNAVAILABLE",
  },
];

let upstream: FakeUpstream;
let gateway: TestGateway;
const pair = useGatewayPair();
const start = async (options: Parameters<typeof pair.start>[0] = {}) => ({ upstream, gateway } = await pair.start(options));

const send = (row: FamilyRow, headers: Record<string, string> | string[], body: unknown = row.body, path = row.path): Promise<RawResponse> =>
  rawRequest(gateway.url, { method: "POST", path, headers, body: typeof body === "string" ? body : JSON.stringify(body) });
const jsonHeaders = (row: FamilyRow) => ({ ...row.keyHeaders(LOCAL_KEY), "content-type": "application/json" });

/** Whose cut part of an event the upstream holds back, by the request's `x-cut`. */
const held = new Map<string, () => void>();
/**
 * The upstream sends the row's whole event, then its first `x-cut` bytes, then dies. The cut part leaves only when
 * the test saw the whole event reach its client (`release`), so the gateway reads the two apart, never in one read.
 */
const wholeThenCut = (row: FamilyRow) => (req: IncomingMessage) => {
  const cut = String(req.headers["x-cut"]);
  return [row.event, new Promise<void>((resolve) => held.set(cut, resolve)), row.event.slice(0, Number(cut))];
};
const release = (cut: number) => {
  held.get(String(cut))?.();
  held.delete(String(cut));
};

/** The events of an SSE body, parsed as a client would. */
const eventsOf = (body: string): { event?: string | undefined; data: string }[] => decodeEvents(body);

describe.each(FAMILIES)("the $name family", (row) => {
  it("answers a wrong key with 401 in its own shape and an x-request-id", async () => {
    await start();
    const res = await send(row, { ...row.keyHeaders("wrong"), "content-type": "application/json" });
    expect(res.status).toBe(401);
    expect(res.headers["x-request-id"]).toMatch(/^req_/);
    const hint = { chat: "Authorization: Bearer <key>", messages: "x-api-key: <key>", gemini: "x-goog-api-key: <key>" }[row.name];
    expect(JSON.parse(res.body)).toEqual(row.errorBody(401, "authentication_error", `Missing or wrong local key. Send ${hint} with the key printed by \`gateway env\`.`, "invalid_api_key"));
    expect(upstream.received).toHaveLength(0);
  });

  it("answers the Host and Origin guards in its own shape", async () => {
    await start();
    const host = await send(row, { ...jsonHeaders(row), host: "evil.example" });
    expect(host.status).toBe(403);
    expect(JSON.parse(host.body)).toEqual(row.errorBody(403, "permission_error", expect.stringContaining('Host "evil.example" is not allowed') as unknown as string, "host_not_allowed"));
    const origin = await send(row, { ...jsonHeaders(row), origin: "https://evil.example" });
    expect(origin.status).toBe(403);
    expect(JSON.parse(origin.body)).toEqual(
      row.errorBody(403, "permission_error", 'Origin "https://evil.example" is not allowed. Start the gateway with --cors https://evil.example to let that page call it.', "origin_not_allowed"),
    );
    expect(upstream.received).toHaveLength(0);
  });

  it("refuses a repeated content-type or key header with 400, forwarding nothing", async () => {
    await start();
    const headers = Object.entries(jsonHeaders(row)).flat();
    const twiceType = await send(row, [...headers, "content-type", "text/plain"]);
    expect(twiceType.status).toBe(400);
    expect(JSON.parse(twiceType.body)).toEqual(row.errorBody(400, "invalid_request_error", "The content-type header was sent more than once. Send it once.", "repeated_header", "content-type"));
    const keyName = Object.keys(row.keyHeaders(LOCAL_KEY))[0]!;
    const twiceKey = await send(row, [...headers, keyName, LOCAL_KEY]);
    expect(twiceKey.status).toBe(400);
    expect(twiceKey.body).toContain(`The ${keyName} header was sent more than once.`);
    expect(upstream.received).toHaveLength(0);
  });

  it("checks the body: 415 for another content type, 400 naming a missing field", async () => {
    await start();
    const plain = await send(row, { ...jsonHeaders(row), "content-type": "text/plain" });
    expect(plain.status).toBe(415);
    expect(JSON.parse(plain.body)).toEqual(row.errorBody(415, "invalid_request_error", "Content-Type must be application/json.", "unsupported_media_type"));
    const { [row.requiredField]: _dropped, ...missing } = row.body;
    const res = await send(row, jsonHeaders(row), missing);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual(
      row.errorBody(400, "invalid_request_error", `Missing required field "${row.requiredField}": it must be an array.`, "missing_required_field", row.requiredField),
    );
    expect(upstream.received).toHaveLength(0);
  });

  it("swaps the key: the client's credentials never reach the upstream", async () => {
    await start();
    const res = await send(row, { ...jsonHeaders(row), authorization: `Bearer ${LOCAL_KEY}` }, row.body, `${row.path}${row.name === "gemini" ? "?key=" + LOCAL_KEY + "&x=1" : ""}`);
    expect(res.status).toBe(200);
    const seen = upstream.last();
    expect(JSON.stringify(seen.rawHeaders)).not.toContain(LOCAL_KEY);
    expect(seen.url).not.toContain(LOCAL_KEY);
    if (row.name === "gemini") expect(seen.url).toBe("/gemini/v1beta/models/gemini-fake:generateContent?x=1");
  });

  it("records the model and the tokens of JSON and streamed replies", async () => {
    await start();
    expect((await send(row, jsonHeaders(row))).status).toBe(200);
    expect((await send(row, jsonHeaders(row), row.streamBody, row.streamPath)).status).toBe(200);
    await expect.poll(() => gateway.records.length).toBe(2);
    const model = { chat: "gpt-fake", messages: "claude-fake", gemini: "gemini-fake" }[row.name];
    const output = { chat: 2, messages: 2, gemini: 4 }[row.name];
    for (const record of gateway.records) {
      expect(record).toMatchObject({ family: row.name, model, status: 200, inputTokens: 11, outputTokens: output, cacheReadTokens: 4, outcome: "complete" });
    }
  });

  it("never leaves half an event before the error event, whatever byte the upstream dies after", async () => {
    await start();
    upstream.behaviour.rawChunks = wholeThenCut(row);
    // the response arrives as latin1 characters (one a byte), its chunked framing included
    const whole = Buffer.from(row.event).toString("latin1");
    const cuts = Array.from({ length: row.event.length }, (_, i) => i);
    for (let i = 0; i < cuts.length; i += 16) {
      await Promise.all(
        cuts.slice(i, i + 16).map(async (cut) => {
          const onData = (received: string) => {
            if (received.includes("\r\n\r\n") && chunkFrames(received).join("").includes(whole)) release(cut);
          };
          const response = await rawPost(gateway.url, row.streamPath, { ...jsonHeaders(row), "x-cut": String(cut) }, JSON.stringify(row.streamBody), onData);
          const body = Buffer.from(chunkFrames(response).join(""), "latin1").toString("utf8");
          const events = eventsOf(body);
          // the complete event, then exactly one error event, each one parseable JSON, and nothing after
          expect(events, `cut at ${cut}`).toHaveLength(2);
          expect(JSON.parse(events[0]!.data)).toEqual(JSON.parse(eventsOf(row.event)[0]!.data));
          expect(row.isErrorEvent(events[1]!), `cut at ${cut}`).toBe(true);
          expect(body.endsWith("\n\n")).toBe(true);
        }),
      );
    }
  });
});

describe("SDKs reading a stream whose upstream dies mid-event", () => {
  const cutsOf = (event: string) => Array.from({ length: event.length - 1 }, (_, i) => i + 1);

  it("openai: an APIError at every cut, never a SyntaxError", async () => {
    await start();
    const row = FAMILIES[0]!;
    upstream.behaviour.rawChunks = wholeThenCut(row);
    for (const cut of cutsOf(row.event).filter((c) => c % 3 === 0 || c < 8 || c > row.event.length - 4)) {
      const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0, defaultHeaders: { "x-cut": String(cut) } });
      const stream = await client.chat.completions.create({ model: "gpt-fake", stream: true, messages: [{ role: "user", content: "hi" }] });
      const texts: string[] = [];
      const error = await (async () => {
        for await (const chunk of stream) {
          texts.push(chunk.choices[0]?.delta.content ?? "");
          release(cut);
        }
      })().then(() => undefined, (e: unknown) => e);
      expect(error, `cut at ${cut}`).toBeInstanceOf(OpenAI.APIError);
      expect(texts).toEqual(["héllo wörld"]);
    }
  });

  it("anthropic: an APIError at every cut, never a SyntaxError", async () => {
    await start();
    const row = FAMILIES[1]!;
    upstream.behaviour.rawChunks = wholeThenCut(row);
    for (const cut of cutsOf(row.event).filter((c) => c % 3 === 0 || c < 8 || c > row.event.length - 4)) {
      const client = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0, defaultHeaders: { "x-cut": String(cut) } });
      const stream = await client.messages.create({ model: "claude-fake", max_tokens: 10, stream: true, messages: [{ role: "user", content: "hi" }] });
      const error = await (async () => {
        for await (const _event of stream) release(cut);
      })().then(() => undefined, (e: unknown) => e);
      expect(error, `cut at ${cut}`).toBeInstanceOf(Anthropic.APIError);
    }
  });

  it("genai: the stream ends with an error, never a SyntaxError", async () => {
    await start();
    const row = FAMILIES[2]!;
    upstream.behaviour.rawChunks = wholeThenCut(row);
    for (const cut of [1, 10, 40, row.event.length - 3, row.event.length - 1]) {
      const ai = new GoogleGenAI({ apiKey: LOCAL_KEY, httpOptions: { baseUrl: `${gateway.url}/gemini`, headers: { "x-cut": String(cut) } } });
      const stream = await ai.models.generateContentStream({ model: "gemini-fake", contents: "hi" });
      const texts: string[] = [];
      const error = await (async () => {
        for await (const chunk of stream) {
          texts.push(chunk.text ?? "");
          release(cut);
        }
      })().then(() => undefined, (e: unknown) => e);
      expect(texts, `cut at ${cut}`).toEqual(["héllo"]);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(SyntaxError);
      expect(String((error as Error).message)).toContain("The upstream connection broke in the middle of the reply");
    }
  });
});
