import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type ConfigFlags, type GatewayConfig, type OtlpSettings } from "../../src/config/index.js";
import type { KeySourceFor } from "../../src/upstream/upstream-set.js";
import { startGateway, type Gateway } from "../../src/server/start-gateway.js";
import type { RequestRecord } from "../../src/request-log/record.js";
import { clientKeySource, staticKeySource, noKeySource } from "../../src/upstream/key-source.js";
import { testSeal } from "./translate.js";
import { closeAfterEach } from "./close-after-each.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream } from "./fake-upstream.js";

export const LOCAL_KEY = "gw-local-test-key-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

export interface TestGateway extends Gateway {
  records: RequestRecord[];
  configDir: string;
}

/** A fresh config directory with an optional config.json. */
export function tempConfigDir(file?: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "gateway-test-"));
  if (file) writeFileSync(join(dir, "config.json"), JSON.stringify(file));
  return dir;
}

/** Starts a real gateway on 127.0.0.1:0 in this process, in front of `upstream` (a URL, or "echo"). */
export interface TestGatewayOptions {
  file?: Record<string, unknown>;
  flags?: ConfigFlags;
  bodyTimeoutMs?: number;
  earlyStartMs?: number;
  keepAliveMs?: number;
  /** More environment for the config (the upstream is `GATEWAY_UPSTREAM` unless `upstream` is undefined). */
  env?: NodeJS.ProcessEnv;
  /** Each upstream's key, as the CLI resolves it (default: the fake upstream's key for every real upstream). */
  keySourceFor?: (config: GatewayConfig) => KeySourceFor;
  onInternalError?: (error: unknown) => void;
  /** OTLP export (SPEC 12), and where its warnings go. */
  otlp?: OtlpSettings;
  onTelemetryWarning?: (line: string) => void;
}

export async function startTestGateway(upstream: string | undefined, options: TestGatewayOptions = {}): Promise<TestGateway> {
  const configDir = tempConfigDir(options.file);
  // The request log of a test gateway is its own (a budget reads it at start), never the developer's.
  const env = { GATEWAY_CONFIG_DIR: configDir, GATEWAY_STATE_DIR: join(configDir, "state"), ...(upstream === undefined ? {} : { GATEWAY_UPSTREAM: upstream }), ...options.env };
  const config = loadConfig({ env, flags: { port: 0, ...options.flags } });
  const records: RequestRecord[] = [];
  const gateway = await startGateway({
    config,
    keySourceFor: options.keySourceFor?.(config) ?? ((entry) => (entry.key.kind === "client" ? clientKeySource : entry.url === "echo" || entry.key.kind === "none" ? noKeySource : staticKeySource(FAKE_UPSTREAM_KEY))),
    localKey: LOCAL_KEY,
    seal: testSeal,
    version: "0.0.0-test",
    onRequest: (record) => records.push(record),
    bodyTimeoutMs: options.bodyTimeoutMs,
    earlyStartMs: options.earlyStartMs,
    keepAliveMs: options.keepAliveMs,
    onInternalError: options.onInternalError,
    otlp: options.otlp,
    onTelemetryWarning: options.onTelemetryWarning,
  });
  return { ...gateway, records, configDir };
}

/**
 * A fake upstream with a gateway in front of it, closed after each test. `start` may be called from
 * `beforeEach` or inside a test that needs its own options.
 */
export function useGatewayPair() {
  const opened = closeAfterEach();
  return {
    async start(options: TestGatewayOptions = {}) {
      const upstream = opened(await startFakeUpstream());
      return { upstream, gateway: opened(await startTestGateway(upstream.url, options)) };
    },
  };
}
