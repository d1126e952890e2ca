import { createSseDecoder } from "../../sse/sse.js";
import { noUsage } from "../../families/index.js";
import { STREAM_END, upstreamEventOf, type HubStreamItem } from "../../translate/index.js";
import { replyAsStream } from "../../translate/reply-as-stream.js";
import type { UpstreamReply } from "../../upstream/upstream.js";
import type { Exchange } from "../exchange.js";
import type { RoutePlan } from "../stages/plan-route.js";
import { relayDecoded, type RelayedBody } from "./decoded-body.js";
import type { EventStreamWriter } from "./event-stream-writer.js";
import { singleHeader } from "./passthrough.js";
import { midStreamError } from "./relay-body.js";
import type { ClientErrors } from "./translated-error.js";
import { readUpstreamJson } from "./translated-json.js";

type TranslatePlan = Extract<RoutePlan, { kind: "translate" }>;

/** What is read of an upstream's body after its `[DONE]` before its connection is closed instead of kept for reuse. */
const AFTER_END_LIMIT = 64 * 1024;

/**
 * The items with each upstream error's message redacted: an upstream may repeat its key in an error inside its
 * stream, as in an error reply (JSON errors, headers and captures go through the same `Secrets`).
 */
function withoutKeys(items: HubStreamItem[], redact: (text: string) => string): HubStreamItem[] {
  if (!items.some((item) => item.type === "error")) return items;
  return items.map((item) => (item.type === "error" ? { type: "error", error: { ...item.error, message: redact(item.error.message) } } : item));
}

/**
 * A translated stream (SPEC 10 rule 3): the upstream's bytes are decoded into events as they arrive, each event goes
 * through the upstream format's reader to the hub and through the client format's state machine out again, and what
 * one upstream read makes is written by the end of the same turn of the loop; nothing waits for a later read. The
 * client's socket pushes back on the upstream. An upstream that dies or times out ends the stream with the client
 * format's error event; a client that goes away aborts the upstream.
 */
export async function relayTranslatedStream(
  x: Exchange,
  plan: TranslatePlan,
  reply: UpstreamReply,
  writer: EventStreamWriter,
  headers: Record<string, string | string[]>,
  errors: ClientErrors,
): Promise<void> {
  const { draft, res } = x;
  draft.replyHeaders = reply.headers;
  if (!singleHeader(reply.headers["content-type"])?.startsWith("text/event-stream")) {
    const read = await readUpstreamJson(reply, plan, errors);
    if (!read) return;
    draft.usage = read.usage;
    writer.open(headers);
    writer.push(replyAsStream(plan.target.replyToHub(read.json, plan.tctx)));
    return writer.finish();
  }
  writer.open(headers);
  const { redact } = errors;
  const source = plan.target.streamToHub(plan.tctx);
  const usage = noUsage();
  /** The upstream said `[DONE]`: its reply is over, and what follows is not read (bytes after it: `AFTER_END_LIMIT`). */
  let ended = false;
  let afterEnd = 0;
  const decoder = createSseDecoder((message) => {
    if (ended) return;
    const event = upstreamEventOf(message);
    if (event === STREAM_END) ended = true;
    if (typeof event !== "object") return;
    // Read from the object the translator reads: no second scan of the bytes and no second parse for the usage.
    plan.call.family.readUsage(event.data, usage);
    if (!writer.ended) writer.push(withoutKeys(source.push(event), redact));
  });
  draft.outcome = await new Promise((resolve) => {
    // Chunks that came before the relay starts are handed over inside relayDecoded, before it returns the body.
    let body: RelayedBody | undefined;
    let broken = false;
    const complete = () => {
      writer.push(withoutKeys(source.finish(), redact));
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
        broken = true;
        body?.destroy();
        resolve("upstream_error");
        return false;
      },
      end() {
        if (ended) return;
        decoder.end();
        complete();
      },
      error(error) {
        if (res.destroyed || writer.ended) return resolve("client_closed");
        writer.fail(midStreamError(error));
        resolve("upstream_error");
      },
    });
    if (broken) body.destroy();
    res.on("drain", () => body.resume());
    res.once("close", () => {
      if (res.writableFinished) return;
      writer.stop();
      body.destroy();
      resolve("client_closed");
    });
  });
  draft.usage = usage;
}
