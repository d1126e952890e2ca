import type { Pricer } from "../pricing/index.js";
import type { RequestRecord, RequestSink } from "../request-log/record.js";

/** Records kept in memory for the page's first view, its charts and its totals. */
const KEEP = 10_000;
/** Bytes a page may have unread before it misses lines: a stalled page holds no more than this. */
const MAX_PENDING_BYTES = 1024 * 1024;

interface Subscriber {
  controller: ReadableStreamDefaultController<Uint8Array>;
  /** Records not sent because the page fell behind; told to it once it reads again. */
  dropped: number;
}

const encoder = new TextEncoder();

/**
 * The dashboard's view of the traffic: a ring of recent records and the pages that follow it live. A record is
 * handed to each page as one NDJSON line without waiting: a page that stops reading keeps at most
 * `MAX_PENDING_BYTES` queued, then misses records (and is told how many), so it never holds memory without
 * bound nor delays a proxied byte.
 */
export function createLiveFeed() {
  // A ring: a record costs one slot write whatever the count, never a shift of the ones before it.
  const ring: RequestRecord[] = [];
  let next = 0;
  const subscribers = new Set<Subscriber>();
  let price: Pricer | undefined;

  function send(subscriber: Subscriber, line: Uint8Array): void {
    const { controller } = subscriber;
    // The queue's size is what the page has not read yet: the socket takes from it only as fast as the page reads.
    if ((controller.desiredSize ?? 0) <= 0) {
      subscriber.dropped++;
      return;
    }
    if (subscriber.dropped > 0) {
      controller.enqueue(encoder.encode(`${JSON.stringify({ type: "dropped", count: subscriber.dropped })}\n`));
      subscriber.dropped = 0;
    }
    controller.enqueue(line);
  }

  const sink: RequestSink = (record) => {
    ring[next] = record;
    next = (next + 1) % KEEP;
    if (subscribers.size === 0) return;
    const line = encoder.encode(`${JSON.stringify({ type: "record", record: { ...record, headers: undefined, costUsd: price?.(record) } })}\n`);
    for (const subscriber of subscribers) send(subscriber, line);
  };

  return {
    sink,
    /** Oldest first. */
    recent: (): RequestRecord[] => (ring.length < KEEP ? ring.slice() : [...ring.slice(next), ...ring.slice(0, next)]),
    /** Every new record as NDJSON lines, from a `hello` on, until the page goes away or the feed closes. */
    follow(): ReadableStream<Uint8Array> {
      let subscriber: Subscriber | undefined;
      return new ReadableStream<Uint8Array>(
        {
          start(controller) {
            subscriber = { controller, dropped: 0 };
            subscribers.add(subscriber);
            controller.enqueue(encoder.encode(`${JSON.stringify({ type: "hello" })}\n`));
          },
          cancel() {
            if (subscriber) subscribers.delete(subscriber);
          },
        },
        { highWaterMark: MAX_PENDING_BYTES, size: (chunk) => chunk.byteLength },
      );
    },
    /** Prices each record sent from now on (`costUsd`, as `/ui/api/summary` has it); priced only when a page follows. */
    usePricer(pricer: Pricer): void {
      price = pricer;
    },
    /** Ends every page's stream (shutdown). */
    close(): void {
      for (const { controller } of subscribers) controller.close();
      subscribers.clear();
    },
    subscriberCount: () => subscribers.size,
  };
}

export type LiveFeed = ReturnType<typeof createLiveFeed>;
