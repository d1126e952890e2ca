import { resolve } from "node:path";
import type { GatewayConfig } from "../config/index.js";
import { keyFingerprint } from "./key-fingerprint.js";
import { probeHealth, type Health } from "./probe-health.js";
import { isAlive } from "./stop-gateway.js";
import { listGatewayRecords, removeStaleRecord, type GatewayRecord } from "./gateway-record.js";

/** A gateway that answers `/health`, and whether it is this user's. */
export interface LiveGateway {
  port: number;
  health: Health;
  /** Its record in this user's state directory, when it has one. */
  record: GatewayRecord | undefined;
  /**
   * `yours` when it accepts this user's local key; `other` when it accepts another one (another user's gateway, or
   * one started with another config directory or GATEWAY_LOCAL_KEY); `unknown` for a gateway too old to say.
   */
  owner: "yours" | "other" | "unknown";
  /**
   * Whether it serves this configuration (its record names this config directory), the only gateways a command
   * picks without `-p`. A record of a gateway older than that field counts when the gateway takes this
   * configuration's local key, which lives in the config directory unless GATEWAY_LOCAL_KEY is set.
   */
  thisConfig: boolean;
}

/** The gateway a command talks to, and how it was chosen. */
export interface ChosenGateway {
  port: number;
  /** Its `/health` answer; undefined when nothing answers there. */
  health: Health | undefined;
  /** Its record, when it has one. */
  record: GatewayRecord | undefined;
  /** `--port`, `record` (the newest live one) or `config` (GATEWAY_PORT, config.json, 8484). */
  via: "flag" | "record" | "config";
  /** Whose it is (see `LiveGateway`); `none` when nothing answers. */
  owner: LiveGateway["owner"] | "none";
}

const ownerOf = (health: Health | undefined, fingerprint: string): ChosenGateway["owner"] =>
  !health ? "none" : health.keyFingerprint === undefined ? "unknown" : health.keyFingerprint === fingerprint ? "yours" : "other";

/**
 * Every recorded gateway that still answers as the process its record names, of every config directory that shares
 * this state directory, newest first; stale records are removed.
 */
export async function liveGateways(config: GatewayConfig, localKey: string): Promise<LiveGateway[]> {
  const fingerprint = keyFingerprint(localKey);
  const configDir = resolve(config.configDir);
  const live: LiveGateway[] = [];
  for (const record of listGatewayRecords(config.stateDir)) {
    const health = isAlive(record.pid) ? await probeHealth(record.port) : undefined;
    if (health && (health.pid === undefined || health.pid === record.pid)) {
      const owner = ownerOf(health, fingerprint) as LiveGateway["owner"];
      live.push({ port: record.port, health, record, owner, thisConfig: record.configDir === undefined ? owner === "yours" : record.configDir === configDir });
    } else removeStaleRecord(config.stateDir, record);
  }
  return live;
}

/**
 * SPEC section 6: `-p` when given; else the most recently started recorded gateway of this configuration that still
 * answers `/health` as a gateway (stale records are removed on the way); else the configured port. `localKey` tells
 * whether the gateway found is this user's; `live` is `liveGateways`' answer when the caller has it already (each is
 * probed once).
 */
export async function findGateway(config: GatewayConfig, flagPort: number | undefined, localKey: string, live?: readonly LiveGateway[]): Promise<ChosenGateway> {
  const fingerprint = keyFingerprint(localKey);
  if (flagPort !== undefined) {
    const health = await probeHealth(flagPort);
    return { port: flagPort, health, record: listGatewayRecords(config.stateDir).find((r) => r.port === flagPort), via: "flag", owner: ownerOf(health, fingerprint) };
  }
  const newest = (live ?? (await liveGateways(config, localKey))).find((gateway) => gateway.thisConfig);
  if (newest) return { port: newest.port, health: newest.health, record: newest.record, owner: newest.owner, via: "record" };
  const health = await probeHealth(config.port);
  return { port: config.port, health, record: undefined, via: "config", owner: ownerOf(health, fingerprint) };
}
