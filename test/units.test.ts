import { describe, expect, it } from "vitest";
import { upstreamRequestHeaders, clientResponseHeaders } from "../src/upstream/header-policy.js";
import { backoffDelay, parseRetryAfter, retryDelayFor } from "../src/upstream/retry-policy.js";
import { resolveRoute } from "../src/server/resolve-route.js";
import { streamPieces } from "../src/echo/echo-text.js";

describe("route resolution", () => {
  const route = (method: string, path: string, headers = {}) => resolveRoute(method, path, headers, "anthropic");

  it("sends GET /v1/models to the messages catalog only when a version header is present", () => {
    expect(route("GET", "/v1/models")).toMatchObject({ kind: "forward", route: { endpoint: "models", upstreamPath: "/v1/models" } });
    expect(route("GET", "/v1/models", { "anthropic-version": "x" })).toMatchObject({ route: { upstreamPath: "/anthropic/v1/models" } });
    expect(route("GET", "/v1/models", { "vendor-version": "x" })).toMatchObject({ route: { upstreamPath: "/anthropic/v1/models" } });
  });

  it("keeps chat completions in the chat family whatever headers come along", () => {
    expect(route("POST", "/v1/chat/completions", { "anthropic-version": "x" })).toMatchObject({ route: { endpoint: "chat_completions", upstreamPath: "/v1/chat/completions" } });
  });

  it("treats other paths as passthrough in the family the headers pick", () => {
    expect(route("POST", "/v1/responses")).toMatchObject({ route: { endpoint: "passthrough", upstreamPath: "/v1/responses" } });
    expect(route("POST", "/anthropic/v1/files")).toMatchObject({ route: { endpoint: "passthrough", upstreamPath: "/anthropic/v1/files" } });
  });

  it("refuses encoded separators", () => {
    expect(route("GET", "/v1/a%2Fb")).toEqual({ kind: "not_found" });
    expect(route("GET", "/v1/a%5cb")).toEqual({ kind: "not_found" });
  });
});

describe("header policy", () => {
  it("drops headers named in Connection and merges repeated headers", () => {
    const out = upstreamRequestHeaders(["Connection", "close, X-Foo", "X-Foo", "1", "X-Bar", "a", "x-bar", "b", "TE", "trailers"], "close, X-Foo");
    expect(out).toEqual({ "x-bar": ["a", "b"] });
  });

  it("drops hop-by-hop response headers", () => {
    expect(clientResponseHeaders({ "transfer-encoding": "chunked", connection: "x-hop", "x-hop": "1", "x-keep": "2" })).toEqual({ "x-keep": "2" });
  });
});

describe("retry policy", () => {
  it("reads retry-after as seconds or an HTTP date", () => {
    expect(parseRetryAfter("2")).toBe(2000);
    expect(parseRetryAfter(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3000);
    expect(parseRetryAfter("soon")).toBeUndefined();
  });

  it("backs off exponentially with jitter", () => {
    expect(backoffDelay(0, () => 0)).toBe(250);
    expect(backoffDelay(0, () => 1)).toBe(500);
    expect(backoffDelay(3, () => 1)).toBe(4000);
    expect(backoffDelay(10, () => 1)).toBe(8000);
  });

  it("never retries other 4xx, nor a retry-after over 30 s", () => {
    expect(retryDelayFor(400, undefined, 0)).toBeUndefined();
    expect(retryDelayFor(429, "31", 0)).toBeUndefined();
    expect(retryDelayFor(529, undefined, 0)).toBeGreaterThan(0);
  });
});

describe("echo streaming pieces", () => {
  it("join back to the exact text", () => {
    for (const text of ["echo: a  b\nc ", "echo: ", "x"]) expect(streamPieces(text).join("")).toBe(text);
  });
});

describe("terminal stream reading", () => {
  it("ignores events whose data is not a JSON object instead of crashing", async () => {
    const { streamPiece } = await import("../src/chat/conversation.js");
    for (const data of ["null", "42", "[1]", "{broken"]) expect(streamPiece("chat", undefined, data)).toBeUndefined();
    expect(streamPiece("messages", "error", '{"type":"error","error":{"message":"overloaded"}}')).toEqual({ error: "overloaded" });
  });
});
