import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { readRegularFile, writePrivateFile } from "../files/private-files.js";
import { parseJsonObject } from "../parse-json.js";

/** What a running gateway says about itself in the state directory (SPEC section 6); never a key. */
export interface GatewayRecord {
  pid: number;
  host: string;
  port: number;
  /** `echo` or the upstream origin. */
  upstream: string;
  version: string;
  /** ISO 8601. */
  startedAt: string;
  /**
   * The config directory it serves, absolute: commands pick among the gateways of their own (issue 37, item 21).
   * Absent in records of older gateways.
   */
  configDir?: string | undefined;
  /** Where a detached gateway's output goes; absent in the foreground. */
  logFile?: string | undefined;
  /** Its capture mode (`off`, `errors`, `all`); absent in records of older gateways. */
  capture?: string | undefined;
}

/** One file per port, so two gateways on two ports each have their own and neither overwrites the other. */
const RECORD_PREFIX = "gateway-";
const RECORD_SUFFIX = ".json";

export const recordPath = (stateDir: string, port: number): string => join(stateDir, `${RECORD_PREFIX}${port}${RECORD_SUFFIX}`);

/** Written atomically (a temporary file renamed over the record) with mode 0600, in a private directory. */
export function writeGatewayRecord(stateDir: string, record: GatewayRecord): string {
  const path = recordPath(stateDir, record.port);
  writePrivateFile(path, `${JSON.stringify(record, null, 2)}\n`);
  return path;
}

/** Removes the record of `port` when it is still the one of `pid` (a newer gateway may have replaced it). */
export function removeGatewayRecord(stateDir: string, port: number, pid: number): void {
  const current = readGatewayRecord(recordPath(stateDir, port));
  if (current?.pid === pid) rmSync(recordPath(stateDir, port), { force: true });
}

function readGatewayRecord(path: string): GatewayRecord | undefined {
  let text: string | undefined;
  try {
    text = readRegularFile(path)?.text;
  } catch {
    return undefined;
  }
  const value = text === undefined ? undefined : (parseJsonObject(text) as Partial<GatewayRecord> | undefined);
  if (!value || typeof value.pid !== "number" || typeof value.port !== "number" || typeof value.startedAt !== "string") return undefined;
  return value as GatewayRecord;
}

/** Every record in the state directory, newest start first; unreadable ones are skipped. */
export function listGatewayRecords(stateDir: string): GatewayRecord[] {
  let names: string[];
  try {
    names = readdirSync(stateDir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.startsWith(RECORD_PREFIX) && name.endsWith(RECORD_SUFFIX))
    .map((name) => readGatewayRecord(join(stateDir, name)))
    .filter((record): record is GatewayRecord => record !== undefined)
    .sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt));
}

/** Drops the record of a gateway that no longer answers. */
export function removeStaleRecord(stateDir: string, record: GatewayRecord): void {
  rmSync(recordPath(stateDir, record.port), { force: true });
}
