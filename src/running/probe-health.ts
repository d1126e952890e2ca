import { get } from "node:http";

/** What `/health` of a local gateway said, or undefined when nothing (or something else) answers. */
export interface Health {
  status: string;
  version: string;
  upstream: string;
  /** The serving process (newer gateways say). */
  pid?: number;
  /** `keyFingerprint` of the local key it accepts (newer gateways say): tells this user's gateways from others'. */
  keyFingerprint?: string;
}

/** More than any gateway's health reply; whatever else listens on the port is not read further. */
const MAX_HEALTH_BYTES = 16_384;

function parseHealth(text: string): Health | undefined {
  try {
    const body = JSON.parse(text) as Partial<Health> | null;
    return body?.status === "ok" && typeof body.version === "string" ? (body as Health) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Asks `http://127.0.0.1:<port>/health`, bounded to a short time. `node:http` rather than `fetch`: the global
 * fetch loads Node's bundled undici on first use (about 13 ms), which `gateway env` and `status` pay every time.
 */
export function probeHealth(port: number, timeoutMs = 1_500): Promise<Health | undefined> {
  return new Promise((resolve) => {
    const request = get({ host: "127.0.0.1", port, path: "/health", timeout: timeoutMs, agent: false }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
        if (text.length > MAX_HEALTH_BYTES) request.destroy();
      });
      response.on("end", () => resolve(response.statusCode === 200 ? parseHealth(text) : undefined));
      response.on("error", () => resolve(undefined));
    });
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(undefined));
    request.on("close", () => resolve(undefined));
  });
}
