import { createServer } from "node:net";
import { getPort } from "get-port-please";

/** Whether `port` on `host` can be listened on right now. */
export function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * A port to suggest in place of a busy one: the first free one of the next twenty (checked now, so a hint never
 * names a port that is busy too), else 0 (any free port). get-port-please tries them in order, and passes over the
 * ports browsers refuse, which the gateway refuses to serve on too.
 */
export async function suggestPort(host: string, busy: number): Promise<number> {
  const last = Math.min(busy + 20, 65535);
  if (busy >= last) return 0;
  return getPort({ host, port: busy + 1, portRange: [busy + 2, last], random: false }).catch(() => 0);
}
