/** What `/health` of a local gateway said, or undefined when nothing (or something else) answers. */
export interface Health {
  status: string;
  version: string;
  upstream: string;
  /** The serving process (newer gateways say). */
  pid?: number;
}

/** Asks `http://127.0.0.1:<port>/health`, bounded to a short time. */
export async function probeHealth(port: number, timeoutMs = 1_500): Promise<Health | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await response.json()) as Partial<Health>;
    return response.ok && body.status === "ok" && typeof body.version === "string" ? (body as Health) : undefined;
  } catch {
    return undefined;
  }
}
