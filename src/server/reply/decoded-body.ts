import type { Readable, Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { withoutByteOrderMark } from "../../parse-json.js";
import { toUpstreamError } from "../../upstream/network-failure.js";
import type { BodySink } from "../../upstream/reply-body.js";
import type { UpstreamReply } from "../../upstream/upstream.js";

const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  "x-gzip": createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** A reply's `content-encoding` when it is one the gateway can undo; undefined for identity or none. */
export function contentEncoding(headers: UpstreamReply["headers"]): string | undefined {
  const value = headers["content-encoding"];
  const encoding = typeof value === "string" ? value.trim().toLowerCase() : undefined;
  return encoding && encoding !== "identity" ? encoding : undefined;
}

/**
 * The reply body as plain bytes. A route that parses the reply asks for no compression, but an upstream may
 * compress anyway: gzip, deflate and br are undone here (SPEC section 5: `content-encoding` goes where the body was
 * re-encoded). An encoding nothing here knows is an error the caller reports, never bytes taken for text.
 */
export function decodedBody(reply: UpstreamReply): Readable {
  const encoding = contentEncoding(reply.headers);
  const make = encoding === undefined ? undefined : DECODERS[encoding];
  if (encoding !== undefined && !make) throw new Error(`the upstream compressed its reply with "${encoding}", which the gateway cannot read`);
  const body = reply.body.readable();
  if (!make) return body;
  const decoder = make();
  body.on("error", (error) => decoder.destroy(error));
  return body.pipe(decoder);
}

/** A body handed to a sink: `resume` after the sink said it was full, `destroy` to stop it (the upstream is aborted). */
export interface RelayedBody {
  resume(): void;
  destroy(reason?: Error): void;
}

/**
 * The reply body as plain bytes, chunk by chunk, to `sink`: straight from the upstream when it is not compressed (no
 * Readable on the way: the streams' machinery was a fifth of a translated stream's CPU), else through the decoder.
 */
export function relayDecoded(reply: UpstreamReply, sink: BodySink): RelayedBody {
  if (contentEncoding(reply.headers) === undefined) {
    reply.body.relay(sink);
    return reply.body;
  }
  const body = decodedBody(reply);
  body.on("data", (chunk: Buffer) => {
    if (!sink.data(chunk)) body.pause();
  });
  body.once("end", () => sink.end());
  body.once("error", (error) => sink.error(error));
  return { resume: () => body.resume(), destroy: (reason) => body.destroy(reason) };
}

/**
 * The whole reply body as text, decompressed (straight from the upstream when it is not compressed, as
 * `relayDecoded`), without a leading byte-order mark. A body that breaks off (the upstream died, the idle timeout
 * fired) is the upstream's failure, named as such, never half a body taken for a whole one.
 */
export async function readText(reply: UpstreamReply, upstream: { name: string; label: string }): Promise<string> {
  try {
    if (contentEncoding(reply.headers) === undefined) return withoutByteOrderMark(await reply.body.text());
    const chunks: Buffer[] = [];
    for await (const chunk of decodedBody(reply)) chunks.push(chunk as Buffer);
    return withoutByteOrderMark(Buffer.concat(chunks).toString("utf8"));
  } catch (error) {
    if (error instanceof Error && error.name === "AbortError") throw error;
    throw toUpstreamError(error, upstream.name, upstream.label, "in the middle of the reply");
  }
}
