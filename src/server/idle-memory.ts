import { setFlagsFromString } from "node:v8";
import type { Occupancy } from "./inflight.js";

/** How long no request may be open before the gateway counts as idle. */
const QUIET_MS = 500;

export interface IdleMemoryOptions {
  quietMs?: number;
  /** `v8.setFlagsFromString`; a test passes a recorder. */
  setFlags?: (flags: string) => void;
  /** Node's own arguments (`process.execArgv`): a user who chose `--optimize-for-size` or its `--no-` keeps it. */
  nodeArgs?: readonly string[];
}

/**
 * Gives the memory a burst of requests grew back to the system soon after the burst ends.
 *
 * After load, V8 keeps its young generation at its largest (32 MB) and the old generation full of garbage until
 * its memory reducer runs a shrinking collection. The reducer looks every 8 s but waits until its allocation-rate
 * history, which only collections update, calls the process idle: on a gateway that was busy, about 30 s. Chrome
 * avoids that wait for background tabs by telling V8 that memory matters more than speed; Node has no API for
 * it, so while no request has been open for `quietMs` the gateway sets the flag that means the same thing
 * (`--optimize-for-size`, which V8 reads where it decides) and clears it when the next request opens. The
 * reducer's next look then shrinks the heap instead of waiting about 30 s. That look keeps its own 8 s timer: the
 * shrink comes at its first tick after the quiet time, 9 s after a wrk run in the bench, one tick later when a
 * tick falls inside the quiet time (so not always within 10 s). Nothing runs
 * while the flag is set, so no code is compiled under it; the one flag it implies (a 1 MB young generation) is
 * only read at start-up. The price: the first seconds of the next saturating burst run slower while the heap
 * grows again (6-12% fewer requests over 6 s in the bench's A/B).
 *
 * The flag is process-wide: one gateway per process (`gateway start`) owns it.
 */
export function createIdleMemory(options: IdleMemoryOptions = {}): Occupancy {
  const { quietMs = QUIET_MS, setFlags = setFlagsFromString, nodeArgs = process.execArgv } = options;
  if (nodeArgs.some((arg) => arg.includes("optimize-for-size"))) return { busy() {}, quiet() {} };
  let preferMemory = false;
  let timer: NodeJS.Timeout | undefined;
  let open = false;

  function onQuiet() {
    if (open || preferMemory) return;
    preferMemory = true;
    setFlags("--optimize-for-size");
  }

  return {
    busy() {
      open = true;
      if (!preferMemory) return;
      preferMemory = false;
      setFlags("--no-optimize-for-size");
    },
    quiet() {
      open = false;
      // One timer for the process's life: refreshing it costs less than a new one after every request.
      if (timer) timer.refresh();
      else timer = setTimeout(onQuiet, quietMs).unref();
    },
  };
}
