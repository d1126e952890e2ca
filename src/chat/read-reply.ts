import type { IncomingHttpHeaders } from "node:http";
import { GatewayProcessError } from "../errors/index.js";
import type { Family } from "../formats/index.js";
import { parseJsonObject } from "../parse-json.js";
import { createSseDecoder } from "../sse/sse.js";

/** A reply as the terminal client reads it: its status, its headers and its body's bytes as they arrive. */
export interface ChatReply {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: AsyncIterable<Buffer>;
}

/** The whole body as text, decoded once (a character split between two reads stays one character). */
export async function bodyText(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Streams the reply's text to `write` as events arrive and returns the whole text. The bytes are decoded as one
 * stream, not chunk by chunk: a character split between two network writes must not become two U+FFFD. A server
 * that answers a stream request with one JSON reply (some local ones ignore `stream`) is read whole.
 */
export async function streamReply(reply: ChatReply, family: Family, write: (text: string) => void): Promise<string> {
  const contentType = reply.headers["content-type"];
  if (typeof contentType === "string" && !contentType.startsWith("text/event-stream")) {
    const { text } = await readReply(reply, family);
    write(text);
    return text;
  }
  let text = "";
  let failure: string | undefined;
  const decoder = createSseDecoder((event) => {
    const piece = family.terminal.streamPiece(event.event, event.data);
    if (!piece) return;
    if ("error" in piece) failure ??= piece.error;
    else {
      text += piece.text;
      write(piece.text);
    }
  });
  for await (const chunk of reply.body) decoder.feed(chunk);
  decoder.end();
  if (failure) throw new GatewayProcessError(`The reply broke off: ${failure}`, { hint: "Try again; run `gateway doctor` if it keeps happening." });
  return text;
}

/** Reads a whole non-stream reply: the parsed JSON and its text. */
export async function readReply(reply: ChatReply, family: Family): Promise<{ json: Record<string, unknown>; text: string }> {
  const body = await bodyText(reply.body);
  const json = parseJsonObject(body);
  if (!json) {
    // Not quoted: a body from the network may hold a key, and a slice of one would not be redacted.
    throw new GatewayProcessError(`The reply is not a JSON object (${body.length} characters of ${reply.headers["content-type"] ?? "no content type"}).`, {
      hint: "The upstream answered 200 with something else: look at it in a capture (`gateway start --capture`, then `gateway logs --show`), or run `gateway doctor`.",
    });
  }
  return { json, text: family.terminal.replyText(json) };
}
