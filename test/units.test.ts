import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { isUnsafePort } from "get-port-please";
import { suggestPort } from "../src/running/free-port.js";
import { upstreamRequestHeaders, clientResponseHeaders } from "../src/upstream/header-policy.js";
import { backoffDelay, parseRetryAfter, retryDelayFor } from "../src/upstream/retry-policy.js";
import { claimPath } from "../src/formats/index.js";
import { onFirstUse } from "../src/formats/on-first-use.js";
import { streamPieces } from "../src/formats/echo-turn.js";
import { redactHeaders } from "../src/server/redact-headers.js";
import { clientName } from "../src/request-log/client-name.js";
import { summarize } from "../src/stats/summarize.js";
import type { RequestRecord } from "../src/request-log/record.js";
import { parseSince } from "../src/cli/commands/stats.js";
import { createUsageObserver } from "../src/server/reply/observe-usage.js";
import { firstEventGivingValueOf, includesBytes } from "../src/server/reply/event-boundary.js";
import { createInflight } from "../src/server/inflight.js";
import { EventStreamWriter } from "../src/server/reply/event-stream-writer.js";
import { midStreamError, relayBody } from "../src/server/reply/relay-body.js";
import { HttpSink } from "../src/server/reply/sink.js";
import { ReplyBody } from "../src/upstream/reply-body.js";
import { AbortSwitch } from "../src/server/abort-switch.js";
import { createKeyCheck } from "../src/server/local-auth.js";
import { pause } from "../src/upstream/abort-like.js";
import { Secrets } from "../src/secrets.js";
import type { Exchange } from "../src/server/exchange.js";
import { upstreamFailed } from "../src/errors/index.js";
import { FAMILY_NAMES, FORMATS, FORMAT_NAMES, familyNamed, familyOf, type FamilyName, type Usage } from "../src/formats/index.js";
import { cacheInInputOf } from "../src/formats/names.js";

describe("route resolution", () => {
  const segments = { messages: "anthropic", gemini: "gemini" };
  const route = (method: string, path: string, headers = {}) => {
    const claimed = claimPath(method, path, headers, segments);
    return claimed && { family: claimed.family.name, upstreamPath: `${claimed.family.paths.prefix(segments)}${claimed.rest}`, checked: claimed.rules !== undefined, pathModel: claimed.pathModel };
  };

  it("sends GET /v1/models to the messages catalog only when a version header is present", () => {
    expect(route("GET", "/v1/models")).toMatchObject({ family: "chat", upstreamPath: "/v1/models" });
    expect(route("GET", "/v1/models", { "anthropic-version": "x" })).toMatchObject({ family: "messages", upstreamPath: "/anthropic/v1/models" });
    expect(route("GET", "/v1/models", { "vendor-version": "x" })).toMatchObject({ family: "messages", upstreamPath: "/anthropic/v1/models" });
  });

  it("keeps chat completions in the chat family whatever headers come along", () => {
    expect(route("POST", "/v1/chat/completions", { "anthropic-version": "x" })).toEqual({ family: "chat", upstreamPath: "/v1/chat/completions", checked: true, pathModel: undefined });
  });

  it("treats other paths as passthrough in the family the headers pick", () => {
    expect(route("POST", "/v1/responses")).toMatchObject({ family: "chat", upstreamPath: "/v1/responses", checked: false });
    expect(route("POST", "/anthropic/v1/files")).toMatchObject({ family: "messages", upstreamPath: "/anthropic/v1/files", checked: false });
  });

  it("gives Gemini paths, bare /v1beta included, to the gemini family with the model from the path", () => {
    expect(route("POST", "/gemini/v1beta/models/gemini-2.5-pro:generateContent")).toEqual({ family: "gemini", upstreamPath: "/gemini/v1beta/models/gemini-2.5-pro:generateContent", checked: true, pathModel: "gemini-2.5-pro" });
    expect(route("POST", "/v1beta/models/a/b:streamGenerateContent")).toMatchObject({ family: "gemini", upstreamPath: "/gemini/v1beta/models/a/b:streamGenerateContent", checked: true, pathModel: "a/b" });
    expect(route("POST", "/gemini/v1/models/m:countTokens")).toMatchObject({ family: "gemini", upstreamPath: "/gemini/v1/models/m:countTokens", checked: false, pathModel: "m" });
    expect(route("GET", "/gemini/v1beta/models")).toMatchObject({ family: "gemini", upstreamPath: "/gemini/v1beta/models", pathModel: undefined });
    expect(route("GET", "/gemini/v2/models")).toBeUndefined();
  });
});

describe("the format registry", () => {
  it("holds each format of names.ts once, in the family and with the usage convention names.ts says", () => {
    expect(FORMATS.map((format) => format.name).sort()).toEqual([...FORMAT_NAMES].sort());
    for (const format of FORMATS) {
      expect(format.family).toBe(familyOf(format.name));
      expect(format.usage.cacheInInput).toBe(cacheInInputOf(format.name));
    }
  });

  it("loads each format's translators and echo on first use, once, and says before they load whether a request can be translated into it", async () => {
    for (const format of FORMATS) {
      const first = format.translators.load();
      expect(format.translators.load()).toBe(first);
      const translators = await first;
      expect(format.translators.loaded).toBe(translators);
      expect(format.translatesInto).toBe(translators.upstream !== undefined);
      expect(typeof translators.client.toHub).toBe("function");
      expect(typeof (await format.echo.load()).answer).toBe("function");
      expect(format.echo.loaded).toBeDefined();
    }
  });

  it("tries a load that failed again on the next use (files replaced under a running gateway), and keeps the one that worked", async () => {
    let calls = 0;
    const part = onFirstUse(async () => {
      calls++;
      if (calls === 1) throw new Error("Cannot find module 'dist/chunks/chat-client.js'");
      return { loadedOn: calls };
    });
    await expect(part.load()).rejects.toThrow("Cannot find module");
    expect(part.loaded).toBeUndefined();
    expect(await part.load()).toEqual({ loadedOn: 2 });
    expect(await part.load()).toBe(part.loaded);
    expect(calls).toBe(2);
  });
});

describe("the port a busy-port hint suggests", () => {
  it("is never one browsers refuse, which gateway start refuses too (6665-6669 follow 6664)", async () => {
    const suggested = await suggestPort("127.0.0.1", 6664);
    expect(suggested).toBeGreaterThan(6669);
    expect(isUnsafePort(suggested)).toBe(false);
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

  it("reads retry-after strictly: delay-seconds (digits only) or an RFC 9110 HTTP-date, anything else absent", () => {
    const now = Date.UTC(2026, 11, 7, 12, 0, 0);
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter(" 7 ", now)).toBe(7000);
    // IMF-fixdate, and the two obsolete forms RFC 9110 section 5.6.7 has recipients accept.
    expect(parseRetryAfter("Mon, 07 Dec 2026 12:00:35 GMT", now)).toBe(35_000);
    expect(parseRetryAfter("Monday, 07-Dec-26 12:00:35 GMT", now)).toBe(35_000);
    expect(parseRetryAfter("Mon Dec  7 12:00:35 2026", now)).toBe(35_000);
    expect(parseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now)).toBe(0);
    // Each of these V8's Date.parse reads as some date, which rested a key for 0 ms.
    for (const loose of ["-1", "5, 7", "1.5", "2026-12-07", "Dec 7 2026", "Mon, 07 Dec 2026 12:00:35 +0000", "mon, 07 dec 2026 12:00:35 GMT", "Mon, 31 Feb 2026 12:00:35 GMT", "Mon, 07 Dec 2026 24:00:00 GMT", "0x10"]) {
      expect([loose, parseRetryAfter(loose, now)]).toEqual([loose, undefined]);
    }
    // The field sent twice has no one meaning.
    expect(parseRetryAfter(["5", "7"], now)).toBeUndefined();
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

describe("redacting text that arrives in pieces", () => {
  const secrets = new Secrets();
  secrets.remember("sk-secret-0123456789");
  secrets.remember("gw-local-abcdefghij");
  const text = "key sk-secret-0123456789 and gw-local-abcdefghij, not sk-sec or gw-l alone";

  it("never writes a key cut across two pieces, at any offset, and writes everything else as it came", () => {
    for (let cut = 0; cut <= text.length; cut++) {
      let out = "";
      const redactor = secrets.redactor((piece) => (out += piece));
      redactor.write(text.slice(0, cut));
      redactor.write(text.slice(cut));
      redactor.end();
      expect(out, `cut at ${cut}`).toBe("key *** and ***, not sk-sec or gw-l alone");
    }
  });

  it("holds back only what could begin a key", () => {
    const written: string[] = [];
    const redactor = secrets.redactor((piece) => written.push(piece));
    redactor.write("plain text ");
    redactor.write("then sk-se");
    expect(written).toEqual(["plain text ", "then "]);
    redactor.write("cret-0123456789!");
    redactor.end();
    expect(written.join("")).toBe("plain text then ***!");
  });
});

describe("echo streaming pieces", () => {
  it("join back to the exact text", () => {
    for (const text of ["echo: a  b\nc ", "echo: ", "x"]) expect(streamPieces(text).join("")).toBe(text);
  });
});

describe("terminal stream reading", () => {
  it("ignores events whose data is not a JSON object instead of crashing", async () => {
    const { FAMILIES, familyNamed } = await import("../src/formats/index.js");
    for (const family of FAMILIES) {
      for (const data of ["null", "42", "[1]", "{broken"]) expect(family.terminal.streamPiece(undefined, data)).toBeUndefined();
    }
    expect(familyNamed("messages").terminal.streamPiece("error", '{"type":"error","error":{"message":"overloaded"}}')).toEqual({ error: "overloaded" });
  });
});

describe("whole-stream SSE decoding", () => {
  it("ends the last event's blank line at a CR that ends the text, as bytes or as a string; without the blank line, no event", async () => {
    const { decodeEvents } = await import("../src/sse/sse.js");
    for (const text of ["data: a\r\r", "data: a\n\r", "data: a\r\n\r"]) {
      expect(decodeEvents(text), JSON.stringify(text)).toEqual([{ id: undefined, event: undefined, data: "a" }]);
      expect(decodeEvents(Buffer.from(text)), JSON.stringify(text)).toEqual([{ id: undefined, event: undefined, data: "a" }]);
    }
    expect(decodeEvents("data: a\r")).toEqual([]);
  });
});

describe("verbose header redaction", () => {
  it("hides every credential-like header and keeps the rest", () => {
    const shown = redactHeaders({
      authorization: "Bearer gw-secret",
      "x-api-key": "gw-secret",
      "proxy-authorization": "Basic abc",
      cookie: "a=b",
      "set-cookie": ["a=b", "c=d"],
      "x-goog-api-key": "k",
      "openai-session-token": "t",
      "content-type": "application/json",
      "x-multi": ["1", "2"],
      "content-length": 12 as unknown as string,
      absent: undefined,
    });
    expect(shown).toEqual({
      authorization: "[redacted]",
      "x-api-key": "[redacted]",
      "proxy-authorization": "[redacted]",
      cookie: "[redacted]",
      "set-cookie": "[redacted]",
      "x-goog-api-key": "[redacted]",
      "openai-session-token": "[redacted]",
      "content-type": "application/json",
      "x-multi": "1, 2",
      "content-length": "12",
    });
  });
});

describe("request log figures", () => {
  it("names the tool behind a user agent without its version", () => {
    expect(clientName("OpenAI/JS 6.49.0")).toBe("OpenAI/JS");
    // Issue 47 item 20: Claude Code is one client, whichever of its two products a request came under; so is Codex.
    expect(clientName("claude-cli/1.0.83 (external, cli)")).toBe("claude-code");
    expect(clientName("claude-code/2.1.197")).toBe("claude-code");
    expect(clientName("codex_exec/0.156.1 (Ubuntu 24.4.0; x86_64)")).toBe("codex");
    expect(clientName("curl/8.5.0")).toBe("curl");
    expect(clientName("python-httpx/0.27.0")).toBe("python-httpx");
    expect(clientName("Mozilla/5.0 (X11; Linux x86_64)")).toBe("Mozilla");
    expect(clientName("  ")).toBe("unknown");
    expect(clientName(undefined)).toBe("unknown");
  });

  it("reads --since as a period or a date", () => {
    const now = Date.UTC(2026, 10, 21, 12);
    expect(parseSince("90s", now)).toBe(now - 90_000);
    expect(parseSince("30m", now)).toBe(now - 1_800_000);
    expect(parseSince("1h", now)).toBe(now - 3_600_000);
    expect(parseSince("7d", now)).toBe(now - 7 * 86_400_000);
    expect(parseSince("2w", now)).toBe(now - 14 * 86_400_000);
    expect(parseSince("2026-11-01T00:00:00Z", now)).toBe(Date.UTC(2026, 10, 1));
    expect(() => parseSince("1x", now)).toThrow('--since "1x" is not a period or a date.');
  });

  it("takes nearest-rank percentiles and counts cut-short replies as errors", () => {
    const base = { time: "2026-01-01T00:00:00.000Z", requestId: "r", method: "POST", path: "/v1/chat/completions", family: "chat", status: 200, cacheReadTokens: undefined, cacheWriteTokens: undefined, userAgent: "t/1", outcome: "complete" } as const;
    const records: RequestRecord[] = Array.from({ length: 20 }, (_, i) => ({ ...base, model: "a", durationMs: i + 1, ttfbMs: i < 10 ? undefined : i, inputTokens: 2, outputTokens: 3 }));
    records.push({ ...base, model: "b", status: 200, outcome: "upstream_error", durationMs: 5, ttfbMs: 1, inputTokens: undefined, outputTokens: undefined });
    records.push({ ...base, model: undefined, status: 401, outcome: "local_error", durationMs: 1, ttfbMs: undefined, inputTokens: undefined, outputTokens: undefined });
    const summary = summarize(records);
    expect(summary.models.map((m) => m.name)).toEqual(["a", "-", "b"]);
    expect(summary.models[0]).toMatchObject({ requests: 20, errors: 0, inputTokens: 40, outputTokens: 60, durationMs: { p50: 10, p95: 19 }, ttfbMs: { p50: 14, p95: 19 } });
    expect(summary.models[2]).toMatchObject({ errors: 1, inputTokens: 0 });
    expect(summary.total).toMatchObject({ requests: 22, errors: 2 });
    expect(summary.clients).toEqual([expect.objectContaining({ name: "t", requests: 22 })]);
    expect(summarize([])).toMatchObject({ from: null, to: null, total: { requests: 0, durationMs: { p50: null, p95: null } } });
  });
});

describe("terminal tables", () => {
  it("line up cells with wide characters by terminal columns, not string length", async () => {
    const { formatTable } = await import("../src/cli/table.js");
    const table = formatTable([{ title: "MODEL" }, { title: "N", align: "right" }], [["中文模型", "1"], ["gpt", "22"]]);
    expect(table.split("\n")).toEqual(["MODEL      N", "中文模型   1", "gpt       22"]);
    const cut = formatTable([{ title: "C", maxWidth: 5 }], [["中文模型"]]);
    expect(cut.split("\n")[1]).toBe("中文…");
  });
});

const NO_USAGE: Usage = { inputTokens: undefined, outputTokens: undefined, cacheReadTokens: undefined, cacheWriteTokens: undefined };

describe("usage observation of event streams", () => {
  // Each family's stream: events without usage, then the events that report it (as the fake upstreams send them).
  const streams: Record<FamilyName, { text: string; usage: Partial<Usage> }> = {
    chat: {
      text: 'data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: {"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3}}\n\ndata: [DONE]\n\n',
      usage: { inputTokens: 7, outputTokens: 3 },
    },
    messages: {
      text: 'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":11,"output_tokens":1}}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","delta":{"text":"a"}}\n\nevent: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":9}}\n\n',
      usage: { inputTokens: 11, outputTokens: 9 },
    },
    gemini: {
      text: 'data: {"candidates":[{"content":{"parts":[{"text":"a"}]}}]}\r\n\r\ndata: {"candidates":[],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":4}}\r\n\r\n',
      usage: { inputTokens: 5, outputTokens: 4 },
    },
  };

  for (const name of FAMILY_NAMES) {
    it(`${name}: reads the usage wherever the chunks split the stream, whole events without usage skipped`, () => {
      const bytes = Buffer.from(streams[name].text);
      for (let a = 1; a < bytes.length; a++) {
        for (const b of [a + 1, Math.min(bytes.length - 1, a + 7), bytes.length - 1]) {
          if (b <= a || b >= bytes.length) continue;
          const observer = createUsageObserver(familyNamed(name).usage, "text/event-stream", undefined);
          for (const piece of [bytes.subarray(0, a), bytes.subarray(a, b), bytes.subarray(b)]) observer.observe(piece);
          expect(observer.result(), `cut at ${a} and ${b}`).toMatchObject(streams[name].usage);
        }
      }
    });

    it(`${name}: reads the usage of a stream that comes whole in one chunk`, () => {
      const observer = createUsageObserver(familyNamed(name).usage, "text/event-stream", undefined);
      observer.observe(Buffer.from(streams[name].text));
      expect(observer.result()).toMatchObject(streams[name].usage);
    });
  }

  it("reads the usage of an OpenAI stream whose every chunk carries usage null, wherever the chunks split it", () => {
    const chunk = (delta: string) => `data: {"id":"c","choices":[{"delta":{"content":"${delta}"}}],"usage":null}\n\n`;
    const bytes = Buffer.from(`${chunk("a")}${chunk("b")}data: {"id":"c","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3}}\n\ndata: [DONE]\n\n`);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const observer = createUsageObserver(familyNamed("chat").usage, "text/event-stream", undefined);
      observer.observe(bytes.subarray(0, cut));
      observer.observe(bytes.subarray(cut));
      expect(observer.result(), `cut at ${cut}`).toEqual({ ...NO_USAGE, inputTokens: 7, outputTokens: 3 });
    }
  });

  it("finds where the first event in which usage has a value begins, whatever the line ends", () => {
    const marker = Buffer.from('"usage"');
    const first = (text: string) => firstEventGivingValueOf(Buffer.from(text), marker);
    expect([first('data: {"usage":null}\n\n'), first('data: {"usage" :\n null}\n\n'), first('data: {"a":1}\n\n'), first('data: {"usage":null}\n\ndata: {"usage":null}\n\n')]).toEqual([-1, -1, -1, -1]);
    for (const end of ["\n\n", "\r\n\r\n", "\r\r", "\r\n\n"]) {
      const before = `data: {"a":1,"usage":null}${end}`;
      const text = `${before}event: x${end.slice(0, end.length / 2)}data: {"usage":{"prompt_tokens":1}}${end}data: {"usage":null}${end}`;
      expect(first(text), JSON.stringify(end)).toBe(before.length);
    }
    expect(first('data: {"usage":null,"x":{"usage":{}}}\n\ndata: {"usage":{"b":2}}\n\n')).toBe(0);
  });

  it("reads a usage event that a lone CR ends, in a chunk whose last event ends otherwise", () => {
    for (const end of ["\r\r", "\n\r"]) {
      const observer = createUsageObserver(familyNamed("chat").usage, "text/event-stream", undefined);
      observer.observe(Buffer.from(`data: {"usage":{"prompt_tokens":1,"completion_tokens":2}}${end}data: {"a":1}\n\n`));
      expect(observer.result(), JSON.stringify(end)).toEqual({ ...NO_USAGE, inputTokens: 1, outputTokens: 2 });
    }
  });

  it("finds a marker anywhere in a chunk, and nothing that is only its prefix", () => {
    const marker = Buffer.from('"usage"');
    expect(includesBytes(Buffer.from('{"usage":1}'), marker)).toBe(true);
    expect(includesBytes(Buffer.from('x"usage"'), marker)).toBe(true);
    expect(includesBytes(Buffer.from('"usag"usage'), marker)).toBe(false);
    expect(includesBytes(Buffer.from('"usa'), marker)).toBe(false);
    expect(includesBytes(Buffer.from('u"usage"'), marker)).toBe(true);
    expect(includesBytes(Buffer.from('"usage'), marker)).toBe(false);
    expect(includesBytes(Buffer.from('{"usageMetadata":{}}'), Buffer.from('"usageMetadata"'))).toBe(true);
  });
});

describe("usage observation of JSON replies", () => {
  const observe = (family: FamilyName, text: string, cuts: number[] = []) => {
    const bytes = Buffer.from(text);
    const observer = createUsageObserver(familyNamed(family).usage, "application/json", undefined);
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      observer.observe(bytes.subarray(from, cut));
      from = cut;
    }
    return observer.result();
  };
  const replies: Record<FamilyName, { text: string; usage: Partial<Usage> }> = {
    chat: {
      text: '{"id":"c","choices":[{"message":{"role":"assistant","content":"the \\"usage\\":{\\"prompt_tokens\\":999} of it"}}],"usage": {"prompt_tokens":7,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":2}},"system_fingerprint":"fp"}',
      usage: { inputTokens: 7, outputTokens: 3, cacheReadTokens: 2 },
    },
    messages: {
      text: '{"id":"m","content":[{"type":"text","text":"usage"}],"usage" :\n {"input_tokens":11,"output_tokens":9,"cache_read_input_tokens":4,"cache_creation_input_tokens":5}}',
      usage: { inputTokens: 11, outputTokens: 9, cacheReadTokens: 4, cacheWriteTokens: 5 },
    },
    gemini: {
      text: '{"candidates":[{"content":{"parts":[{"text":"{\\"usageMetadata\\":{}}"}]}}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":4,"thoughtsTokenCount":1}}',
      usage: { inputTokens: 5, outputTokens: 5 },
    },
  };

  for (const name of FAMILY_NAMES) {
    it(`${name}: reads the usage object only, wherever the chunks split the reply, not a quoted look-alike in the text`, () => {
      const { text, usage } = replies[name];
      expect(JSON.parse(text)).toBeTypeOf("object");
      for (let cut = 0; cut <= Buffer.byteLength(text); cut++) expect(observe(name, text, [cut]), `cut at ${cut}`).toEqual({ ...NO_USAGE, ...usage });
    });
  }

  it("reads the reply's own usage when a usage key nested after it holds no counts (a tool schema echoed back)", () => {
    const reply = '{"id":"r","usage":{"input_tokens":12,"output_tokens":4},"tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"usage":{"type":"string"}}}}]}';
    expect(observe("chat", reply)).toEqual({ ...NO_USAGE, inputTokens: 12, outputTokens: 4 });
  });

  it("reads no usage where there is none as an object, and the usage of a reply cut short after it", () => {
    expect(observe("chat", '{"usage":null}')).toEqual(NO_USAGE);
    expect(observe("chat", '{"usage":7}')).toEqual(NO_USAGE);
    expect(observe("chat", '{"choices":[]}')).toEqual(NO_USAGE);
    expect(observe("chat", '{"usage":{"prompt_tokens":1')).toEqual(NO_USAGE);
    expect(observe("chat", '{"note":"usage", "usage":{"prompt_tokens":1}')).toEqual({ ...NO_USAGE, inputTokens: 1 });
  });
});

describe("in-flight registry", () => {
  // Only what stopAll touches: the exchange's abort, whose reason ends a reply in flight (its upstream body is
  // destroyed with it) as it ends a request still waiting.
  const waiting = () => ({ abort: new AbortSwitch() }) as unknown as Exchange;

  it("ends exactly the requests still open, in any order of leaving, and leaving twice changes nothing", async () => {
    const inflight = createInflight();
    const a = waiting();
    const b = waiting();
    const c = waiting();
    const leaveA = inflight.enter(a);
    const leaveB = inflight.enter(b);
    const leaveC = inflight.enter(c);
    expect(inflight.size()).toBe(3);
    leaveC();
    leaveC();
    expect(inflight.size()).toBe(2);
    const error = upstreamFailed("shutting down");
    expect(inflight.stopAll(error)).toBe(2);
    expect(a.abort.reason).toBe(error);
    expect(b.abort.reason).toBe(error);
    expect(c.abort.aborted).toBe(false);
    const idle = inflight.idle(5_000);
    leaveB();
    leaveA();
    await idle;
    expect(inflight.size()).toBe(0);
  });

  it("tells its occupancy when the first request opens and when the last one closes", () => {
    const events: string[] = [];
    const inflight = createInflight({ busy: () => events.push("busy"), quiet: () => events.push("quiet") });
    const leaveA = inflight.enter(waiting());
    const leaveB = inflight.enter(waiting());
    leaveA();
    leaveA();
    expect(events).toEqual(["busy"]);
    leaveB();
    expect(events).toEqual(["busy", "quiet"]);
    inflight.enter(waiting());
    expect(events).toEqual(["busy", "quiet", "busy"]);
  });
});

describe("an exchange's abort switch", () => {
  it("calls each listener once with the reason set, not a removed one nor one added after", () => {
    const abort = new AbortSwitch();
    const heard: unknown[] = [];
    const first = () => heard.push(["first", abort.aborted, abort.reason]);
    const removed = () => heard.push("removed");
    abort.addEventListener("abort", first);
    abort.addEventListener("abort", removed);
    abort.removeEventListener("abort", removed);
    const reason = new Error("shutting down");
    abort.abort(reason);
    abort.abort(new Error("second"));
    abort.addEventListener("abort", () => heard.push("late"));
    expect(heard).toEqual([["first", true, reason]]);
    expect(abort.reason).toBe(reason);
  });

  it("aborts with an AbortError when no reason is given, like AbortController", () => {
    const abort = new AbortSwitch();
    abort.abort();
    expect(abort.reason).toBeInstanceOf(DOMException);
    expect((abort.reason as DOMException).name).toBe("AbortError");
  });

  it("makes a real AbortSignal on demand that follows it, before and after the abort", () => {
    const early = new AbortSwitch();
    const signal = early.signal;
    expect(signal.aborted).toBe(false);
    early.abort("gone");
    expect([signal.aborted, signal.reason]).toEqual([true, "gone"]);
    const late = new AbortSwitch();
    late.abort("gone");
    expect([late.signal.aborted, late.signal.reason]).toEqual([true, "gone"]);
  });

  it("ends a pause between retries with the reason the moment it is aborted, and refuses one already aborted", async () => {
    const abort = new AbortSwitch();
    const waiting = pause(60_000, abort);
    abort.abort("client left");
    await expect(waiting).rejects.toBe("client left");
    await expect(pause(0, abort)).rejects.toBe("client left");
    await expect(pause(1, new AbortSwitch())).resolves.toBeUndefined();
  });
});

describe("local key check", () => {
  const matches = createKeyCheck("gw-local-0123456789abcdef");

  it("accepts exactly the key: not a prefix, an extension, a repetition, one changed character, nothing or empty", () => {
    expect(matches("gw-local-0123456789abcdef")).toBe(true);
    for (const wrong of ["gw-local-0123456789abcde", "gw-local-0123456789abcdef0", "gw-local-0123456789abcdefgw-local-0123456789abcdef", "gw-local-0123456789abcdeF", "Gw-local-0123456789abcdef", "", undefined]) {
      expect(matches(wrong), String(wrong)).toBe(false);
    }
  });

  it("never matches when the expected key is empty", () => {
    expect(createKeyCheck("")("")).toBe(false);
  });
});

describe("the passthrough relay's writes", () => {
  /** A response that records what reaches it. */
  class RecordedResponse extends EventEmitter {
    calls: string[] = [];
    destroyed = false;
    writableNeedDrain = false;
    write(chunk: Buffer): boolean {
      this.calls.push(`write ${String(chunk)}`);
      return !this.writableNeedDrain;
    }
    end(chunk?: Buffer | string): this {
      this.calls.push(chunk === undefined ? "end" : `end ${String(chunk)}`);
      return this;
    }
    destroy(): this {
      this.destroyed = true;
      this.calls.push("destroy");
      return this;
    }
  }
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
  function relay() {
    let resumed = 0;
    const body = new ReplyBody({ resume: () => resumed++, abort: () => undefined });
    const res = new RecordedResponse();
    const outcome = relayBody(body, new HttpSink(res as unknown as ServerResponse), { errors: familyNamed("chat").errors, isEventStream: true });
    return { body, res, outcome, resumed: () => resumed };
  }

  it("writes the first chunk of a turn at once, the rest of the turn in one write at its end, the last turn's with the end", async () => {
    const { body, res, outcome } = relay();
    body.push(Buffer.from("data: 1\n\n"));
    body.push(Buffer.from("data: 2\n\n"));
    body.push(Buffer.from("data: 3\n\n"));
    expect(res.calls).toEqual(["write data: 1\n\n"]);
    await nextTurn();
    expect(res.calls).toEqual(["write data: 1\n\n", "write data: 2\n\ndata: 3\n\n"]);
    body.push(Buffer.from("data: 4\n\n"));
    body.push(Buffer.from("data: 5\n\n"));
    body.complete();
    expect(res.calls.slice(2)).toEqual(["write data: 4\n\n", "end data: 5\n\n"]);
    expect(await outcome).toBe("complete");
  });

  it("a break in the same turn: the complete events first, then the error event, never the half event", async () => {
    const { body, res, outcome } = relay();
    body.push(Buffer.from("data: 1\n\ndata: 2"));
    body.fail(new Error("socket hang up"));
    expect(res.calls).toEqual(["write data: 1\n\n", `end ${familyNamed("chat").errors.streamEvent(midStreamError(new Error("socket hang up")))}`]);
    expect(await outcome).toBe("upstream_error");
    await nextTurn();
    expect(res.calls).toHaveLength(2);
  });

  it("writes nothing more to a client that went away before the turn ended", async () => {
    const { body, res } = relay();
    body.push(Buffer.from("data: 1\n\n"));
    body.push(Buffer.from("data: 2\n\n"));
    res.destroyed = true;
    await nextTurn();
    expect(res.calls).toEqual(["write data: 1\n\n"]);
  });

  it("pauses the upstream while the client's socket is full, and resumes it on drain", async () => {
    const { body, res, resumed } = relay();
    expect(body.push(Buffer.from("data: 1\n\n"))).toBe(true);
    await nextTurn();
    res.writableNeedDrain = true;
    expect(body.push(Buffer.from("data: 2\n\n"))).toBe(false);
    expect(resumed()).toBe(0);
    res.writableNeedDrain = false;
    res.emit("drain");
    expect(resumed()).toBe(1);
  });
});

describe("a translated stream's writer", () => {
  /** What the writer touches of a response; `leave` is the client going away. */
  class LeavingResponse extends EventEmitter {
    destroyed = false;
    writableFinished = false;
    writableNeedDrain = false;
    writeHead(): this {
      return this;
    }
    flushHeaders(): void {}
    write(): boolean {
      return true;
    }
    end(): this {
      return this;
    }
    leave(): void {
      this.destroyed = true;
      this.emit("close");
    }
  }

  it("ends, its keep-alive stopped, when the client goes away, whoever was waiting for the upstream then", () => {
    const res = new LeavingResponse();
    const x = { sink: new HttpSink(res as unknown as ServerResponse), cors: {}, started: 0, capture: undefined, delivery: { status: undefined, firstByteAt: undefined } } as unknown as Exchange;
    const sink = { start: () => [{ event: "message_start", data: {} }], push: () => [], finish: () => [], fail: () => [], keepAlive: () => [{ event: "ping", data: {} }] };
    const writer = new EventStreamWriter(x, sink, "sse", 15_000);
    // A slow upstream's stream that started early: opened, then the client leaves before the upstream answers.
    writer.open({});
    res.leave();
    expect(writer.ended).toBe(true);
  });
});
