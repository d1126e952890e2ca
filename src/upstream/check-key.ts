import type { UpstreamConfig } from "../config/index.js";
import { upstreamErrorMessage } from "./error-message.js";
import { refusesKey } from "./key-refusal.js";
import { noKeySource, staticKeySource } from "./key-source.js";
import { createDispatcher } from "./create-dispatcher.js";
import { createUpstream } from "./upstream.js";

/** What an upstream's model list said about a key. */
export interface KeyCheck {
  status: number;
  /** The upstream's error message, when it gave one. */
  message: string | undefined;
  /** The path asked, for messages: `/v1/models`, `/anthropic/v1/models`, `/v1beta/models`. */
  path: string;
  /** Whether the answer says the key was refused: 401, 403, or a kind's own word for it (`key-refusal.ts`). */
  refused: boolean;
}

/**
 * Asks the upstream's model list, in the first family it serves, whether it accepts `key` (or, for `key: "none"`,
 * whether it answers at all). No retries: a check should say what happened, not hide it. Network failures throw the
 * usual upstream errors.
 */
export async function checkKey(config: UpstreamConfig, key: string | undefined, timeoutMs = 15_000): Promise<KeyCheck> {
  const base = new URL(config.url);
  const upstream = createUpstream({
    config: { ...config, retries: 0 },
    base,
    label: base.origin,
    keySource: key === undefined ? noKeySource : staticKeySource(key),
    dispatcher: () => createDispatcher(base, config.timeouts),
  });
  const family = upstream.families[0]!;
  try {
    const reply = await upstream.send({ family, method: "GET", path: family.models.path, headers: { accept: "application/json" }, signal: AbortSignal.timeout(timeoutMs) });
    const text = await reply.body.text().catch(() => "");
    return { status: reply.status, message: upstreamErrorMessage(text), path: `${family.paths.prefix(upstream.segments)}${family.models.path}`, refused: refusesKey(reply.status, text) };
  } finally {
    await upstream.close();
  }
}
