import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { chatFamily, claimPath, geminiFamily, messagesFamily, type Family, type Segments } from "../families/index.js";
import { parseJsonObject } from "../parse-json.js";
import * as gemini from "./echo-gemini.js";
import * as replies from "./echo-replies.js";
import { echoReplyText } from "./echo-structured.js";
import { allText, estimateTokens, lastUserText } from "./echo-text.js";

/** A running echo upstream. */
export interface EchoServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

const MAX_BODY = 32 * 1024 * 1024;

function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on("end", () => resolve(parseJsonObject(Buffer.concat(chunks).toString("utf8"))));
    req.on("error", () => resolve(undefined));
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), "request-id": `echo-${Date.now()}` });
  res.end(text);
}

function sendEvents(res: ServerResponse, events: string[]): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  for (const event of events) res.write(event);
  res.end();
}

function sendError(res: ServerResponse, family: Family, status: number, message: string): void {
  sendJson(res, status, family.errorBody({ status, type: status === 404 ? "not_found_error" : "invalid_request_error", message, param: null, code: null }));
}

/** A Gemini `GET models/{model}`: the model named, else undefined. */
const GEMINI_MODEL = /^\/v1(?:beta)?\/models\/([^:/]+)$/;

async function handle(req: IncomingMessage, res: ServerResponse, segments: Segments): Promise<void> {
  const [path = "/", query = ""] = (req.url ?? "/").split("?");
  const method = req.method ?? "GET";
  // The echo upstream reads paths the way the gateway does: the same family table, the same segments.
  const claim = claimPath(method, path, req.headers, segments);
  const family = claim?.family ?? chatFamily;
  const notServed = () => sendError(res, family, 404, `The echo upstream does not serve ${method} ${path}.`);
  if (!claim) return notServed();
  if (method === "GET") {
    if (claim.kind === "models") return sendJson(res, 200, family === geminiFamily ? gemini.geminiModelList() : family === messagesFamily ? replies.messagesModelList() : replies.chatModelList());
    const model = family === geminiFamily ? GEMINI_MODEL.exec(claim.rest)?.[1] : undefined;
    return model ? sendJson(res, 200, gemini.geminiModel(model)) : notServed();
  }
  if (method !== "POST" || claim.format === undefined) return notServed();

  const body = await readJson(req);
  if (!body) return sendError(res, family, 400, "The echo upstream expects a JSON object body.");
  const turn: replies.EchoTurn = {
    model: typeof body.model === "string" ? body.model : (claim.pathModel ?? replies.ECHO_MODELS[0]),
    text: echoReplyText(claim.format, body, `echo: ${lastUserText(body)}`),
    inputTokens: estimateTokens(allText(body)),
  };
  const stream = body.stream === true;
  if (claim.kind === "count") return sendJson(res, 200, family === geminiFamily ? gemini.countTokens(turn) : { input_tokens: turn.inputTokens });
  switch (claim.format) {
    case "chat": {
      const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
      return stream ? sendEvents(res, replies.chatCompletionEvents(turn, includeUsage)) : sendJson(res, 200, replies.chatCompletion(turn));
    }
    case "responses":
      return stream ? sendEvents(res, replies.responseEvents(turn)) : sendJson(res, 200, replies.response(turn));
    case "messages":
      return stream ? sendEvents(res, replies.messageEvents(turn)) : sendJson(res, 200, replies.message(turn));
    case "gemini":
      if (!claim.rest.endsWith(":streamGenerateContent")) return sendJson(res, 200, gemini.generateContent(turn));
      if (new URLSearchParams(query).get("alt") === "sse") return sendEvents(res, gemini.generateContentEvents(turn));
      res.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
      return void res.end(gemini.generateContentArray(turn));
  }
}

/**
 * The built-in offline upstream: a real HTTP server on an ephemeral loopback port that answers both wire
 * formats of all three families (and the Responses API) with the last user message prefixed by `echo: `, or with
 * JSON that fits the schema a structured-output request gives (`echo-structured.ts`). It needs no key.
 */
export async function startEchoServer(segments: Segments): Promise<EchoServer> {
  const server: Server = createServer((req, res) => {
    handle(req, res, segments).catch(() => res.destroy());
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
