import { toApiError, type ApiError } from "../../errors/index.js";
import { noUsage } from "../../formats/index.js";
import { createSseDecoder } from "../../sse/sse.js";
import { chunkChars, replyChars } from "../../translate/hub-usage.js";
import { STREAM_END, upstreamEventOf, type HubStreamItem } from "../../translate/index.js";
import { replyAsStream } from "../../translate/reply-as-stream.js";
import type { UpstreamReply } from "../../upstream/upstream.js";
import { clientLeft, type Exchange } from "../exchange.js";
import { relayDecoded, type RelayedBody } from "./decoded-body.js";
import { EventStreamWriter } from "./event-stream-writer.js";
import { singleHeader } from "./passthrough.js";
import { midStreamError } from "./relay-body.js";
import type { ReplyTransform } from "./transform.js";
import { readUpstreamJson } from "./translated-json.js";
import { readUpstreamErrorReply, rewrittenHeaders, streamErrorFields, upstreamAnswer, type Translation } from "./translation.js";

/** What is read of an upstream's body after its `[DONE]` before its connection is closed instead of kept for reuse. */
const AFTER_END_LIMIT = 64 * 1024;

/**
 * The items with each upstream error inside its stream worded for the client (`streamErrorFields`: its key redacted,
 * since an upstream may repeat it there as in an error reply, and a context overflow in the tool's words).
 */
function worded(items: HubStreamItem[], t: Translation): HubStreamItem[] {
  if (!items.some((item) => item.type === "error")) return items;
  return items.map((item) => (item.type === "error" ? { type: "error", error: streamErrorFields(t, item.error, item.detail) } : item));
}

/** What a translated stream is told by the gateway that runs it. */
export interface StreamTiming {
  /** A stream that has sent the client nothing this long sends a keep-alive. */
  keepAliveMs: number;
  /** A stream of a format that starts early opens the client's stream when the upstream is silent this long. */
  earlyStartMs: number;
  /** Told about an error the gateway did not expect, which then ends the stream. */
  onInternalError: (error: unknown) => void;
}

/**
 * A translated stream (SPEC 10 rule 3): the upstream's bytes are decoded into events as they arrive, each event goes
 * through the upstream format's reader to the hub and through the client format's state machine out again, and what
 * one upstream read makes is written by the end of the same turn of the loop; nothing waits for a later read. The
 * client's socket pushes back on the upstream. An upstream that dies or times out ends the stream with the client
 * format's error event; a client that goes away aborts the upstream.
 */
async function relayTranslatedStream(x: Exchange, t: Translation, reply: UpstreamReply, writer: EventStreamWriter, headers: Record<string, string | string[]>): Promise<void> {
  const { delivery, sink } = x;
  delivery.replyHeaders = reply.headers;
  if (!singleHeader(reply.headers["content-type"])?.startsWith("text/event-stream")) {
    const read = await readUpstreamJson(reply, t);
    // A 200 body that is an error: the client's error, as a JSON answer, or the last event of a stream started early.
    if ("error" in read) {
      if (writer.opened) return writer.fail(read.error);
      throw upstreamAnswer(read.error, headers);
    }
    delivery.usage = read.usage;
    const hub = t.target.replyToHub(read.json, t.tctx);
    delivery.relayedChars = replyChars(hub);
    delivery.inputEstimate = t.hints.inputTokens;
    writer.open(headers);
    writer.push(replyAsStream(hub));
    return writer.finish();
  }
  writer.open(headers);
  const source = t.target.streamToHub(t.tctx);
  const usage = noUsage();
  // What the client is told, counted for the estimate of a reply that reports no usage (SPEC 11, Budgets).
  let chars = 0;
  /** The upstream said `[DONE]`: its reply is over, and what follows is not read (bytes after it: `AFTER_END_LIMIT`). */
  let ended = false;
  let afterEnd = 0;
  const decoder = createSseDecoder((message) => {
    if (ended) return;
    const event = upstreamEventOf(message);
    if (event === STREAM_END) ended = true;
    if (typeof event !== "object") return;
    // Read from the object the translator reads: no second scan of the bytes and no second parse for the usage.
    t.to.usage.read(event.data, usage);
    if (writer.ended) return;
    const items = source.push(event);
    for (const item of items) if (item.type === "chunk") chars += chunkChars(item.chunk);
    writer.push(worded(items, t));
  });
  delivery.outcome = await new Promise((resolve) => {
    // Chunks that came before the relay starts are handed over inside relayDecoded, before it returns the body.
    let body: RelayedBody | undefined;
    let broken = false;
    const complete = () => {
      writer.push(worded(source.finish(), t));
      writer.finish();
      resolve("complete");
    };
    body = relayDecoded(reply, {
      data(chunk) {
        if (ended) {
          // Read and forgotten, so that the connection can serve the next request; an upstream that goes on writing
          // loses it instead.
          afterEnd += chunk.length;
          if (afterEnd > AFTER_END_LIMIT) body?.destroy();
          return true;
        }
        decoder.feed(chunk);
        if (!writer.ended) {
          if (!ended) return writer.flushSoon();
          complete();
          return true;
        }
        // The upstream's stream said it failed (an error event): the translator ended the client's stream with it.
        // Said before the upstream request is aborted, whose abort reports itself as a failure at once.
        broken = true;
        resolve("upstream_error");
        body?.destroy();
        return false;
      },
      end() {
        if (ended) return;
        decoder.end();
        complete();
      },
      error(error) {
        if (sink.closed || writer.ended) return resolve("client_closed");
        writer.fail(midStreamError(error));
        resolve("upstream_error");
      },
    });
    if (broken) body.destroy();
    sink.onDrain(() => body.resume());
    sink.onceClose(() => {
      if (sink.finished) return;
      body.destroy();
      resolve("client_closed");
    });
  });
  delivery.usage = usage;
  delivery.relayedChars = chars;
  delivery.inputEstimate = t.hints.inputTokens;
}

/**
 * The reply transform of a translated stream. It owns the client's stream writer, and with it the early start: a
 * format that starts early (`WireFormat.startsEarly`) opens the client's stream when the upstream has not answered
 * within `earlyStartMs` (SPEC 10, Details), and from then on the reply is committed: nothing falls back, and a
 * failure, an upstream's error reply included, is the stream's last event.
 */
export class TranslatedStreamReply implements ReplyTransform {
  readonly #x: Exchange;
  readonly #t: Translation;
  readonly #timing: StreamTiming;
  readonly #writer: EventStreamWriter;
  #early: NodeJS.Timeout | undefined;

  constructor(x: Exchange, t: Translation, query: string, timing: StreamTiming) {
    this.#x = x;
    this.#t = t;
    this.#timing = timing;
    this.#writer = new EventStreamWriter(x, t.client.streamFromHub(t.hints, t.tctx), t.from.framing(query), timing.keepAliveMs);
  }

  sending(upstream: string): void {
    if (this.#t.from.startsEarly) this.#early = setTimeout(() => this.#writer.open({ "x-gateway-upstream": upstream }), this.#timing.earlyStartMs);
  }

  settled(): void {
    clearTimeout(this.#early);
  }

  committed(): boolean {
    return this.#writer.opened;
  }

  async deliver(reply: UpstreamReply): Promise<void> {
    const x = this.#x;
    const t = this.#t;
    const headers = rewrittenHeaders(reply, t);
    if (reply.status >= 400) {
      const fields = await readUpstreamErrorReply(x, reply, t);
      // A stream that started early has said 200 already: the error is its last event.
      if (this.#writer.opened) return this.#writer.fail(fields);
      throw upstreamAnswer(fields, headers);
    }
    try {
      await relayTranslatedStream(x, t, reply, this.#writer, headers);
    } catch (error) {
      if (!this.#writer.opened || clientLeft(x)) throw error;
      this.fail(toApiError(error, this.#timing.onInternalError));
    }
  }

  fail(error: ApiError): void {
    const { delivery } = this.#x;
    delivery.error = error;
    delivery.outcome = "upstream_error";
    this.#writer.fail(error);
  }
}
