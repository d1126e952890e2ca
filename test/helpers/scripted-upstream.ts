import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { encodeEvents, type SseOut } from "../../src/sse/sse.js";

/** One request as a scripted upstream received it. */
export interface ScriptedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
  raw: Buffer;
}

/**
 * What the upstream answers: a JSON body, or a stream of raw chunks (SSE text the test wrote, cut where it likes); a
 * promise among the chunks holds the stream there until the test settles it.
 */
export type ScriptedReply =
  | { status?: number; headers?: Record<string, string>; json: unknown }
  | { status?: number; headers?: Record<string, string>; chunks: (string | Buffer | Promise<void>)[]; gapMs?: number; die?: boolean; after?: Promise<void> };

export type Script = (request: ScriptedRequest) => ScriptedReply | Promise<ScriptedReply>;

/** SSE text of chat chunks, each a data event, then `[DONE]` unless `done` is false. */
export function chatSse(chunks: unknown[], done = true): string {
  return encodeEvents([...chunks.map((data): SseOut => ({ data })), ...(done ? [{ data: "[DONE]", raw: true }] : [])]);
}

/** SSE text of Anthropic events: `event: <type>` + data. */
export const messagesSse = (events: { type: string }[]): string => encodeEvents(events.map((data) => ({ event: data.type, data })));

/** A chat chunk with one choice. */
export const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
  id: "chatcmpl-s",
  object: "chat.completion.chunk",
  created: 1700000000,
  model: "upstream-model",
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});

/** A non-stream chat completion. */
export const completion = (message: Record<string, unknown>, finish = "stop", usage = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 }) => ({
  id: "chatcmpl-s",
  object: "chat.completion",
  created: 1700000000,
  model: "upstream-model",
  choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
  usage,
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function answer(res: ServerResponse, reply: ScriptedReply): Promise<void> {
  if ("json" in reply) {
    const text = JSON.stringify(reply.json);
    res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
    return void res.end(text);
  }
  res.writeHead(reply.status ?? 200, { "content-type": "text/event-stream", ...reply.headers });
  if (reply.after) {
    // The headers leave now; the body waits for the test.
    res.flushHeaders();
    await reply.after;
  }
  for (const piece of reply.chunks) {
    if (res.destroyed) return;
    if (piece instanceof Promise) {
      await piece;
      continue;
    }
    res.write(piece);
    if (reply.gapMs) await sleep(reply.gapMs);
  }
  if (reply.die) {
    await sleep(20);
    return void res.destroy();
  }
  res.end();
}

/**
 * An upstream on 127.0.0.1 that answers whatever its script says and records every request: for translation tests,
 * where each case needs its own exact upstream bytes (tool calls in odd shapes, usage after the finish, errors).
 */
export async function startScriptedUpstream(script: Script) {
  const received: ScriptedRequest[] = [];
  let current = script;
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      let body: Record<string, unknown> | undefined;
      try {
        body = raw.length ? (JSON.parse(raw.toString("utf8")) as Record<string, unknown>) : undefined;
      } catch {
        body = undefined;
      }
      const request: ScriptedRequest = { method: req.method!, url: req.url!, path: req.url!.split("?")[0]!, headers: req.headers, body, raw };
      received.push(request);
      Promise.resolve(current(request))
        .then((reply) => answer(res, reply))
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    last: () => received[received.length - 1]!,
    /** Replaces the script for the next requests. */
    script(next: Script) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type ScriptedUpstream = Awaited<ReturnType<typeof startScriptedUpstream>>;
