import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The folder this install lives in (the one with its package.json), found upwards from this module: the build
 * bundles modules into chunks at other depths than their source (`dist/chunks/`), and the tests run the source
 * itself (`src/`), so no relative path from a module's own place holds for both.
 */
function installRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) throw new Error(`No package.json above ${fileURLToPath(import.meta.url)}: the install is incomplete.`);
  }
}

export const INSTALL_ROOT = installRoot();
