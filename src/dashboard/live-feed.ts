import type { ServerResponse } from "node:http";
import type { RequestRecord, RequestSink } from "../request-log/record.js";

/** Records kept in memory for the page's first view, its charts and its totals. */
const KEEP = 10_000;
/** Bytes a page may have unread before it misses lines: a stalled page holds no more than this. */
const MAX_PENDING_BYTES = 1024 * 1024;

interface Subscriber {
  res: ServerResponse;
  /** Records not sent because the page fell behind; told to it once it reads again. */
  dropped: number;
}

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

  function send(subscriber: Subscriber, line: string): void {
    const { res } = subscriber;
    if (res.writableLength > MAX_PENDING_BYTES) {
      subscriber.dropped++;
      return;
    }
    if (subscriber.dropped > 0) {
      res.write(`${JSON.stringify({ type: "dropped", count: subscriber.dropped })}\n`);
      subscriber.dropped = 0;
    }
    res.write(line);
  }

  const sink: RequestSink = (record) => {
    ring[next] = record;
    next = (next + 1) % KEEP;
    if (subscribers.size === 0) return;
    const line = `${JSON.stringify({ type: "record", record: { ...record, headers: undefined } })}\n`;
    for (const subscriber of subscribers) send(subscriber, line);
  };

  return {
    sink,
    /** Oldest first. */
    recent: (): RequestRecord[] => (ring.length < KEEP ? ring.slice() : [...ring.slice(next), ...ring.slice(0, next)]),
    /** Streams every new record to `res`; resolves when the page goes away (the server must not end it before). */
    follow(res: ServerResponse): Promise<void> {
      const subscriber: Subscriber = { res, dropped: 0 };
      subscribers.add(subscriber);
      res.write(`${JSON.stringify({ type: "hello" })}\n`);
      return new Promise((resolve) => {
        res.once("close", () => {
          subscribers.delete(subscriber);
          resolve();
        });
      });
    },
    /** Ends every page's stream (shutdown). */
    close(): void {
      for (const { res } of subscribers) res.end();
      subscribers.clear();
    },
    subscriberCount: () => subscribers.size,
  };
}

export type LiveFeed = ReturnType<typeof createLiveFeed>;
