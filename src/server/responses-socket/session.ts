import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { RawData, WebSocket } from "ws";
import { errorTypeFor } from "../../errors/index.js";
import { parseJsonObject } from "../../parse-json.js";
import { createExchange, type Exchange, type RequestHead } from "../exchange.js";
import type { BodySource } from "../gateway-handler.js";
import { SocketMessageSink } from "./message-sink.js";

type Json = Record<string, unknown>;
type Serve = (x: Exchange, readBody: BodySource) => Promise<void>;

/** Headers of the upgrade that belong to the socket, not to the requests its messages stand for. */
const SOCKET_HEADERS = new Set(["upgrade", "connection", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions", "sec-websocket-protocol", "content-length", "content-type", "transfer-encoding"]);

/**
 * The head of the `POST /v1/responses` each message stands for: the upgrade's URL and headers, less the socket's own
 * and the `OpenAI-Beta: responses_websockets=...` that names the socket protocol (an HTTP upstream must not think it
 * is asked for one), with the JSON body's content type.
 */
function postHead(req: IncomingMessage): RequestHead {
  const rawHeaders: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    const value = req.rawHeaders[i + 1]!;
    if (SOCKET_HEADERS.has(name) || (name === "openai-beta" && value.includes("responses_websockets"))) continue;
    rawHeaders.push(req.rawHeaders[i]!, value);
  }
  rawHeaders.push("content-type", "application/json");
  const headers: Json = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const before = headers[name];
    headers[name] = before === undefined ? rawHeaders[i + 1] : Array.isArray(before) ? [...before, rawHeaders[i + 1]] : `${String(before)}, ${rawHeaders[i + 1]}`;
  }
  return { method: "POST", url: req.url ?? "/v1/responses", headers: headers as RequestHead["headers"], rawHeaders, transport: "websocket" };
}

/** An `error` message, as the Responses WebSocket protocol sends one: the HTTP status and the error object. */
function errorMessage(status: number, error: unknown): string {
  return JSON.stringify({ type: "error", status, error });
}

/**
 * One Codex WebSocket (SPEC 12, Codex over WebSocket): each `response.create` message is served, one at a time in
 * the order they came, as the `POST /v1/responses` stream it stands for (`serve`: the same stages, records and
 * captures), its events sent back as text messages. The socket keeps each response's input and output, so a message
 * that continues one (`previous_response_id`, with only the new input items) is expanded to the whole conversation
 * before any stage sees it: an upstream reached over HTTP gets every request whole, as Codex's HTTP transport sends it.
 * A prewarm (`generate: false`, codex-rs `core/src/client.rs`) asks for no model call: the gateway answers it itself
 * with an empty completed response whose id a later message continues, and records nothing. A socket that closes
 * aborts the message in flight.
 */
export function serveResponsesSocket(ws: WebSocket, req: IncomingMessage, serve: Serve): void {
  const head = postHead(req);
  /** Each response's input and output items, by id. */
  const conversations = new Map<string, unknown[]>();
  let inFlight: SocketMessageSink | undefined;
  let queue = Promise.resolve();

  ws.on("message", (data: RawData, isBinary: boolean) => {
    queue = queue.then(() => answer(isBinary ? undefined : parseJsonObject(String(data))));
  });
  ws.on("close", () => inFlight?.socketClosed());
  ws.on("error", () => inFlight?.socketClosed());

  async function answer(message: Json | undefined): Promise<void> {
    if (ws.readyState !== ws.OPEN) return;
    if (!message || message.type !== "response.create") {
      return ws.send(errorMessage(400, { type: errorTypeFor(400), code: "invalid_request_error", message: 'Each message must be a JSON object of type "response.create".' }));
    }
    const { type: _type, generate, previous_response_id: previous, ...body } = message;
    const before = typeof previous === "string" ? conversations.get(previous) : undefined;
    const input = [...(before ?? []), ...(Array.isArray(body.input) ? body.input : [])];
    if (generate === false) return prewarm(input);
    // A continuation of a response this socket did not serve goes as it came: the upstream may know it.
    const request: Json = { ...body, input, stream: true, ...(before === undefined && typeof previous === "string" ? { previous_response_id: previous } : {}) };
    const output: unknown[] = [];
    const sink = new SocketMessageSink(ws, {
      onEvent: (data) => {
        const event = parseJsonObject(data);
        if (event?.type === "response.output_item.done") output.push(event.item);
        const response = event?.type === "response.completed" ? (event.response as Json | undefined) : undefined;
        if (typeof response?.id === "string") conversations.set(response.id, [...input, ...output]);
      },
      onRefusal: (status, text) => ws.send(errorMessage(status, parseJsonObject(text)?.error ?? { type: errorTypeFor(status), message: text })),
    });
    inFlight = sink;
    const bytes = Buffer.from(JSON.stringify(request));
    await serve(createExchange(head, sink), () => Promise.resolve(bytes));
    inFlight = undefined;
  }

  function prewarm(input: unknown[]): void {
    const id = `resp_${randomUUID().replaceAll("-", "")}`;
    conversations.set(id, input);
    const response = { id, object: "response", created_at: Math.floor(Date.now() / 1000), status: "completed", output: [], usage: null };
    ws.send(JSON.stringify({ type: "response.created", response: { ...response, status: "in_progress" } }));
    ws.send(JSON.stringify({ type: "response.completed", response }));
  }
}
