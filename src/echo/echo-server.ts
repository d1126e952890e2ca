import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { errorTypeFor } from "../errors/index.js";
import { ECHO_MODELS, estimateTokens, type EchoTurn } from "../formats/echo-turn.js";
import { chatFamily, claimPath, type Family, type Segments } from "../formats/index.js";
import { parseJsonObject } from "../parse-json.js";
import { allText, lastUserText } from "./echo-text.js";
import { sampleJson } from "./json-sample.js";

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
  sendJson(res, status, family.errors.body({ status, type: errorTypeFor(status), message, param: null, code: null }));
}

async function handle(req: IncomingMessage, res: ServerResponse, segments: Segments): Promise<void> {
  const [path = "/", query = ""] = (req.url ?? "/").split("?");
  const method = req.method ?? "GET";
  // The echo upstream reads paths the way the gateway does: the same registry, the same segments.
  const claim = claimPath(method, path, req.headers, segments);
  const family = claim?.family ?? chatFamily;
  const notServed = () => sendError(res, family, 404, `The echo upstream does not serve ${method} ${path}.`);
  if (!claim) return notServed();
  if (method === "GET") {
    const listed = claim.kind === "models" ? family.echo.models() : family.echo.model(claim.rest);
    return listed ? sendJson(res, 200, listed) : notServed();
  }
  const { format } = claim;
  if (method !== "POST" || format === undefined) return notServed();

  const body = await readJson(req);
  if (!body) return sendError(res, family, 400, "The echo upstream expects a JSON object body.");
  // A request for structured output (Gemini CLI's model router asks so, and retried a text answer for a minute and a
  // half) gets JSON that fits its schema, with the echo wherever a free string fits.
  const echo = `echo: ${lastUserText(body)}`;
  const replies = format.echo.loaded ?? (await format.echo.load());
  const schema = replies.requestedSchema(body);
  const turn: EchoTurn = {
    model: typeof body.model === "string" ? body.model : (claim.pathModel ?? ECHO_MODELS[0]),
    text: schema === undefined ? echo : JSON.stringify(sampleJson(schema, echo)),
    inputTokens: estimateTokens(allText(body)),
  };
  if (claim.kind === "count") return sendJson(res, 200, format.count!.reply(turn.inputTokens));
  const answer = replies.answer(turn, { body, rest: claim.rest, stream: format.streams(claim.rest, body), query: `?${query}` });
  if ("json" in answer) return sendJson(res, 200, answer.json);
  if ("events" in answer) return sendEvents(res, answer.events);
  res.writeHead(200, { "content-type": answer.contentType });
  res.end(answer.text);
}

/**
 * The built-in offline upstream: a real HTTP server on an ephemeral loopback port that answers both wire
 * formats of all three families (and the Responses API) with the last user message prefixed by `echo: `, or with
 * JSON that fits the schema a structured-output request gives (`json-sample.ts`). It needs no key.
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
