import { getHeapStatistics } from "node:v8";
import type { Occupancy } from "./inflight.js";

/** How long no request may be open before the gateway counts as idle. */
const QUIET_MS = 1_000;
/** How much the heap must have grown since it was last small before an idle spell is worth a collection. */
const GROWTH_BYTES = 16 * 1024 * 1024;

export interface IdleMemoryOptions {
  quietMs?: number;
  growthBytes?: number;
  /** The heap's committed size in bytes; a test passes its own. */
  heapSize?: () => number;
  /** Collects all garbage and shrinks the heap; a test passes a recorder. */
  collect?: () => Promise<void>;
}

/**
 * Gives the memory a burst of requests grew back to the system soon after the burst ends.
 *
 * After load V8 keeps its young generation at its largest (32 MB) and the old generation's emptied pages. Its own
 * memory reducer does not reliably give them back: once it has run, it starts again only after a collection finds
 * the old generation's committed memory 10% and 10 MB above what it left, so a burst that grew mostly the young
 * generation stays grown until a bigger one (in the bench, one gateway in three stayed 53 MB above idle for good),
 * and when it does start, it waits 8 s after the last full collection. So when no request has been open for
 * `quietMs` and the heap has grown by `growthBytes`, the gateway collects itself, once per burst. The price: the
 * main thread is busy for 40-60 ms while nothing is open, and the next saturating burst starts with a small heap.
 */
export function createIdleMemory(options: IdleMemoryOptions = {}): Occupancy {
  const { quietMs = QUIET_MS, growthBytes = GROWTH_BYTES, heapSize = committedHeap, collect = collectAllGarbage } = options;
  let smallest = heapSize();
  let open = false;
  let collecting = false;
  let unavailable = false;
  let timer: NodeJS.Timeout | undefined;

  function onQuiet() {
    if (open || collecting || unavailable) return;
    const size = heapSize();
    // V8 may have shrunk the heap on its own since the last look: growth counts from there.
    smallest = Math.min(smallest, size);
    if (size - smallest < growthBytes) return;
    collecting = true;
    collect().then(
      () => (smallest = heapSize()),
      // A Node built without the inspector: V8's own reducer is all there is.
      () => (unavailable = true),
    ).finally(() => (collecting = false));
  }

  return {
    busy() {
      open = true;
    },
    quiet() {
      open = false;
      // One timer for the process's life: refreshing it costs less than a new one after every request.
      if (timer) timer.refresh();
      else timer = setTimeout(onQuiet, quietMs).unref();
    },
  };
}

function committedHeap(): number {
  return getHeapStatistics().total_heap_size;
}

/**
 * What an embedder's `Isolate::LowMemoryNotification` does: memory-reducing full collections until one finds
 * nothing more, then both generations shrunk to what is live. Node offers it only through the inspector protocol
 * (`HeapProfiler.collectGarbage`); an in-process session opens no port and enables no debugger.
 */
export async function collectAllGarbage(): Promise<void> {
  const { Session } = await import("node:inspector");
  const session = new Session();
  session.connect();
  try {
    await new Promise<void>((resolve, reject) => session.post("HeapProfiler.collectGarbage", (error) => (error ? reject(error) : resolve())));
  } finally {
    // Not from inside the reply's callback: Node 20 hangs when the session is disconnected there.
    setImmediate(() => session.disconnect());
  }
}
