import type { GatewayConfig } from "../config/index.js";
import { chatFamily } from "../families/index.js";
import { upstreamErrorMessage } from "./error-message.js";
import { staticKeySource } from "./key-source.js";
import { openUpstream } from "./open-upstream.js";

/** What `GET {base}/v1/models` said about a key. */
export interface KeyCheck {
  status: number;
  /** The upstream's error message, when it gave one. */
  message: string | undefined;
}

/** Asks the upstream's model catalog whether it accepts `key`. Network failures throw the usual 502/504 errors. */
export async function checkKey(config: GatewayConfig, key: string, timeoutMs = 15_000): Promise<KeyCheck> {
  const upstream = await openUpstream({ ...config, retries: 0 }, staticKeySource(key));
  try {
    const reply = await upstream.client.send({
      family: chatFamily,
      method: "GET",
      path: "/v1/models",
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await reply.body.text().catch(() => "");
    return { status: reply.status, message: upstreamErrorMessage(text) };
  } finally {
    await upstream.close();
  }
}
