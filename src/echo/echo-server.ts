import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { FAMILIES, chatFamily, geminiFamily, messagesFamily, type Family, type Segments } from "../families/index.js";
import { parseJsonObject } from "../parse-json.js";
import * as gemini from "./echo-gemini.js";
import * as replies from "./echo-replies.js";
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

/** `/v1/messages` under the messages prefix, `:generateContent` under Gemini's: the endpoint, family-neutral. */
function endpointOf(family: Family, path: string, segments: Segments): string {
  const rest = path.slice(family.prefix(segments).length);
  const gemini = /^\/v1(?:beta)?\/models\/(.+):([A-Za-z]+)$/.exec(rest);
  if (family === geminiFamily && gemini) return `:${gemini[2]}`;
  return rest.replace(/^\/v1beta\//, "/v1/");
}

async function handle(req: IncomingMessage, res: ServerResponse, segments: Segments): Promise<void> {
  const [path = "/", query = ""] = (req.url ?? "/").split("?");
  const method = req.method ?? "GET";
  const family = FAMILIES.find((f) => f.prefix(segments) !== "" && path.startsWith(`${f.prefix(segments)}/`)) ?? chatFamily;
  const endpoint = endpointOf(family, path, segments);
  const geminiModel = /\/models\/([^:]+)(?::|$)/.exec(path)?.[1];

  if (method === "GET") {
    if (endpoint === "/v1/models") return sendJson(res, 200, family === geminiFamily ? gemini.geminiModelList() : family === messagesFamily ? replies.messagesModelList() : replies.chatModelList());
    if (family === geminiFamily && geminiModel) return sendJson(res, 200, gemini.geminiModel(geminiModel));
    return sendError(res, family, 404, `The echo upstream does not serve ${method} ${path}.`);
  }
  if (method !== "POST") return sendError(res, family, 404, `The echo upstream does not serve ${method} ${path}.`);

  const body = await readJson(req);
  if (!body) return sendError(res, family, 400, "The echo upstream expects a JSON object body.");
  const turn: replies.EchoTurn = {
    model: typeof body.model === "string" ? body.model : (geminiModel ?? replies.ECHO_MODELS[0]),
    text: `echo: ${lastUserText(body)}`,
    inputTokens: estimateTokens(allText(body)),
  };
  const stream = body.stream === true;
  switch (family === chatFamily ? endpoint : `${family.name}:${endpoint}`) {
    case "/v1/chat/completions": {
      const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
      return stream ? sendEvents(res, replies.chatCompletionEvents(turn, includeUsage)) : sendJson(res, 200, replies.chatCompletion(turn));
    }
    case "/v1/responses":
      return stream ? sendEvents(res, replies.responseEvents(turn)) : sendJson(res, 200, replies.response(turn));
    case "messages:/v1/messages":
      return stream ? sendEvents(res, replies.messageEvents(turn)) : sendJson(res, 200, replies.message(turn));
    case "messages:/v1/messages/count_tokens":
      return sendJson(res, 200, { input_tokens: turn.inputTokens });
    case "gemini::generateContent":
      return sendJson(res, 200, gemini.generateContent(turn));
    case "gemini::streamGenerateContent":
      if (new URLSearchParams(query).get("alt") === "sse") return sendEvents(res, gemini.generateContentEvents(turn));
      res.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
      return void res.end(gemini.generateContentArray(turn));
    case "gemini::countTokens":
      return sendJson(res, 200, gemini.countTokens(turn));
    default:
      return sendError(res, family, 404, `The echo upstream does not serve POST ${path}.`);
  }
}

/**
 * The built-in offline upstream: a real HTTP server on an ephemeral loopback port that answers both wire
 * formats of all three families (and the Responses API) with the last user message prefixed by `echo: `. It needs no key.
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
