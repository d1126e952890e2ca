import { join } from "node:path";
import { INSTALL_ROOT } from "../install-root.js";

/** The `gateway` executable of this install, for the commands that start a detached gateway. */
export const BIN_PATH = join(INSTALL_ROOT, "bin", "gateway.js");
