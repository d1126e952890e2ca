import { performance } from "node:perf_hooks";
import { parseJsonObject } from "../../parse-json.js";
import { clientResponseHeaders } from "../../upstream/header-policy.js";
import type { Usage } from "../../families/index.js";
import type { Exchange } from "../exchange.js";
import { redactHeaders } from "../redact-headers.js";
import type { GatewayContext } from "../gateway-context.js";
import { listWithAliases } from "./exchange-upstream.js";
import { createUsageObserver } from "./observe-usage.js";
import { relayBody, type RelayOutcome } from "./relay-body.js";

/** Headers that keep intermediaries (and some clients) from buffering an event stream. */
const EVENT_STREAM_HEADERS = { "cache-control": "no-cache", "x-accel-buffering": "no" };

/** A header's value when it was sent once; repeated values are not trusted for content type or encoding. */
const singleHeader = (value: string | string[] | undefined): string | undefined => (typeof value === "string" ? value : undefined);

export interface Relayed {
  outcome: RelayOutcome;
  usage: Usage | undefined;
}

/** A model list with the exact aliases appended (SPEC section 7); any other body, or one that is not JSON, as it came. */
async function relayModelList(x: Exchange, ctx: GatewayContext): Promise<Relayed> {
  const reply = x.reply!;
  const text = await reply.body.text();
  const list = reply.status === 200 ? parseJsonObject(text) : undefined;
  const body = list ? JSON.stringify(x.family.models.withAliases(list, ctx.aliases.exact)) : text;
  const headers = clientResponseHeaders(reply.headers);
  delete headers["content-length"];
  delete headers["content-encoding"];
  x.firstByteAt = performance.now();
  x.capture?.response(reply.status, redactHeaders(reply.headers), false);
  x.capture?.chunk(x.firstByteAt - x.started, Buffer.from(body));
  x.res.writeHead(reply.status, { ...headers, "content-length": Buffer.byteLength(body), ...x.cors });
  x.res.end(body);
  return { outcome: "complete", usage: undefined };
}

/**
 * Stages 8 and 9: the reply's status and headers, then its body piped through as it arrives, watched for
 * timing and usage on the way.
 */
export async function relay(x: Exchange, ctx: GatewayContext): Promise<Relayed> {
  const reply = x.reply!;
  if (listWithAliases(x, ctx)) return relayModelList(x, ctx);
  const contentType = singleHeader(reply.headers["content-type"]);
  const isEventStream = contentType?.startsWith("text/event-stream") === true;
  const { res } = x;
  res.writeHead(reply.status, Object.assign(clientResponseHeaders(reply.headers), isEventStream ? EVENT_STREAM_HEADERS : undefined, x.cors));
  // Headers leave with the first body chunk, in one write instead of two. An event stream whose first event is
  // slow still shows its headers to the client one loop turn later.
  if (isEventStream) {
    setImmediate(() => {
      if (x.firstByteAt === undefined && !res.writableEnded) res.flushHeaders();
    });
  }
  const usage = createUsageObserver(x.family, contentType, singleHeader(reply.headers["content-encoding"]));
  const { capture } = x;
  capture?.response(reply.status, redactHeaders(reply.headers), isEventStream);
  const outcome = await relayBody(reply.body, res, {
    family: x.family,
    isEventStream,
    onChunk: (chunk) => {
      const now = performance.now();
      x.firstByteAt ??= now;
      usage.observe(chunk);
      capture?.chunk(now - x.started, chunk);
    },
  });
  return { outcome, usage: usage.result() };
}
