import { createServer } from "node:net";

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
 * names a port that is busy too), else 0 (any free port).
 */
export async function suggestPort(host: string, busy: number): Promise<number> {
  for (let port = busy + 1; port <= Math.min(busy + 20, 65535); port++) if (await portFree(host, port)) return port;
  return 0;
}
