import type { ConfigFields } from "./types.js";

/** Every default in one place. */
export const DEFAULTS: ConfigFields = Object.freeze({
  upstream: "echo",
  messagesSegment: "anthropic",
  geminiSegment: "gemini",
  port: 8484,
  host: "127.0.0.1",
  cors: Object.freeze([]) as readonly string[],
  defaultModel: undefined,
  anthropicVersion: undefined,
  retries: 2,
  timeouts: Object.freeze({ connectMs: 10_000, firstByteMs: 600_000, idleMs: 300_000 }),
  maxBodyBytes: 32 * 1024 * 1024,
  models: Object.freeze({}),
  capture: "off",
});
