import { statSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_FILE_NAME } from "../config/read-config-file.js";

/**
 * Whether config.json changed after `startedAt` (ISO 8601, a gateway record's): a gateway started before reads the
 * file as it was then (other routes, upstreams, budgets). Its time is all that is compared, so a `touch` counts: the
 * record keeps no copy of what the gateway read.
 */
export function configChangedSince(configDir: string, startedAt: string): boolean {
  try {
    return statSync(join(configDir, CONFIG_FILE_NAME)).mtimeMs > Date.parse(startedAt);
  } catch {
    return false;
  }
}
