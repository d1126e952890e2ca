import { readFileSync } from "node:fs";
import { join } from "node:path";
import { INSTALL_ROOT } from "./install-root.js";

/** The package version, read once from package.json. */
export const VERSION: string = (JSON.parse(readFileSync(join(INSTALL_ROOT, "package.json"), "utf8")) as { version: string }).version;
