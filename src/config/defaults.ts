import { FORMAT_NAMES } from "../formats/names.js";
import type { ConfigFields, RouteRule, UpstreamKey } from "./types.js";

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
  shutdownGraceMs: 10_000,
  models: Object.freeze({}),
  capture: "off",
  prices: Object.freeze({}),
  routes: Object.freeze([]) as readonly RouteRule[],
  budgets: Object.freeze({}),
  telemetry: Object.freeze({}),
});

/**
 * What an upstream leaves out (SPEC section 10). An `upstreams` entry's segments are these built-in ones whatever
 * the top level says; its `retries`, `timeouts` and `anthropicVersion` come from the top level.
 */
export const UPSTREAM_DEFAULTS = Object.freeze({
  // The registry's own list, not a copy: a format registered later is a default too.
  formats: FORMAT_NAMES,
  messagesSegment: "anthropic",
  geminiSegment: "gemini",
  key: Object.freeze({ kind: "keychain" }) as UpstreamKey,
});
