import type { GatewayError } from "../errors/index.js";
import type { Exchange } from "./exchange.js";

/**
 * Every request of one gateway from accept to last byte, so a shutdown can wait for all of them, whether still
 * waiting for the upstream's headers or already streaming, and then end each one that is left.
 */
export function createInflight() {
  const open = new Set<Exchange>();
  let onIdle: (() => void) | undefined;

  return {
    add(x: Exchange): void {
      open.add(x);
    },
    delete(x: Exchange): void {
      open.delete(x);
      if (open.size === 0) onIdle?.();
    },
    get size(): number {
      return open.size;
    },
    /** Resolves when no request is open, or after `ms`, whichever comes first. */
    idle(ms: number): Promise<void> {
      if (open.size === 0) return Promise.resolve();
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
     * Ends every open request with `error`: a reply already streaming gets it as its error event (the upstream
     * body is destroyed with it); one still waiting has its upstream call aborted with it as the reason, and its
     * stage answers it in the family shape.
     */
    stopAll(error: GatewayError): number {
      for (const x of open) {
        if (x.reply) x.reply.body.destroy(error);
        else x.abort.abort(error);
      }
      return open.size;
    },
  };
}

export type Inflight = ReturnType<typeof createInflight>;
