import type { GatewayConfig } from "../config/index.js";
import { probeHealth, type Health } from "./probe-health.js";
import { isAlive } from "./stop-gateway.js";
import { listGatewayRecords, removeStaleRecord, type GatewayRecord } from "./gateway-record.js";

/** The gateway a command talks to, and how it was chosen. */
export interface ChosenGateway {
  port: number;
  /** Its `/health` answer; undefined when nothing answers there. */
  health: Health | undefined;
  /** Its record, when it has one. */
  record: GatewayRecord | undefined;
  /** `--port`, `record` (the newest live one) or `config` (GATEWAY_PORT, config.json, 8484). */
  via: "flag" | "record" | "config";
}

/**
 * SPEC section 6: `-p` when given; else the most recently started recorded gateway that still answers `/health`
 * as a gateway (stale records are removed on the way); else the configured port.
 */
export async function findGateway(config: GatewayConfig, flagPort: number | undefined): Promise<ChosenGateway> {
  const records = listGatewayRecords(config.stateDir);
  if (flagPort !== undefined) {
    return { port: flagPort, health: await probeHealth(flagPort), record: records.find((r) => r.port === flagPort), via: "flag" };
  }
  for (const record of records) {
    const health = isAlive(record.pid) ? await probeHealth(record.port) : undefined;
    if (health && (health.pid === undefined || health.pid === record.pid)) return { port: record.port, health, record, via: "record" };
    removeStaleRecord(config.stateDir, record);
  }
  return { port: config.port, health: await probeHealth(config.port), record: undefined, via: "config" };
}
