import { afterEach } from "vitest";

interface Closable {
  close(graceMs?: number): Promise<unknown>;
}

/**
 * Returns `opened`, which hands back the server it is given and closes it after the test: the last opened first (a
 * gateway before the upstream behind it), at once (a stream a test left open is not waited for), so no test leaves
 * a port or a socket to the next.
 */
export function closeAfterEach(): <T extends Closable>(server: T) => T {
  const open: Closable[] = [];
  afterEach(async () => {
    for (const server of open.splice(0).reverse()) await server.close(0);
  });
  return (server) => {
    open.push(server);
    return server;
  };
}
