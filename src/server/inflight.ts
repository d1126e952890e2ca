import type { ApiError } from "../errors/index.js";
import type { Exchange } from "./exchange.js";

/** Told when the first request opens and when the last one closes. */
export interface Occupancy {
  busy(): void;
  quiet(): void;
}

interface Entry {
  x: Exchange;
  prev: Entry | undefined;
  next: Entry | undefined;
}

/**
 * Every request of one gateway from accept to last byte, so a shutdown can wait for all of them, whether still
 * waiting for the upstream's headers or already streaming, and then end each one that is left.
 *
 * A linked list, not a `Set`: V8's Set kept finished requests reachable until it compacted its table, so every
 * young-generation collection found their whole object graphs alive and promoted them. With a Set the gateway
 * promoted about 5.5 KB a request (295 MB over 54,000 requests under wrk) and spent twice the floor's time in
 * garbage collection; with this list, 1.4 KB, what it promoted before it had a registry.
 */
export function createInflight(occupancy?: Occupancy) {
  let head: Entry | undefined;
  let size = 0;
  let onIdle: (() => void) | undefined;

  function* entries(): Generator<Exchange> {
    for (let entry = head; entry; entry = entry.next) yield entry.x;
  }

  return {
    /** Registers `x`; the returned function takes it out again (calling it twice is harmless). */
    enter(x: Exchange): () => void {
      const entry: Entry = { x, prev: undefined, next: head };
      if (head) head.prev = entry;
      head = entry;
      if (size++ === 0) occupancy?.busy();
      let left = false;
      return () => {
        if (left) return;
        left = true;
        if (entry.prev) entry.prev.next = entry.next;
        else head = entry.next;
        if (entry.next) entry.next.prev = entry.prev;
        entry.prev = entry.next = undefined;
        if (--size > 0) return;
        occupancy?.quiet();
        onIdle?.();
      };
    },
    /** How many requests are open. */
    size(): number {
      return size;
    },
    /** Resolves when no request is open, or after `ms`, whichever comes first. */
    idle(ms: number): Promise<void> {
      if (size === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          onIdle = undefined;
          resolve();
        }
        onIdle = done;
      });
    },
    /**
     * Ends every open request with `error`, the reason its abort signal fires with: a reply already streaming
     * gets it as its error event (the upstream body is destroyed with it); one still waiting has its upstream call
     * aborted, and the error boundary answers it in the family shape.
     */
    stopAll(error: ApiError): number {
      // A copy: ending a request can take it out of the list.
      for (const x of [...entries()]) x.abort.abort(error);
      return size;
    },
  };
}

export type Inflight = ReturnType<typeof createInflight>;
