import { fileURLToPath } from "node:url";

/** The `gateway` executable of this install, for the commands that start a detached gateway. */
export const BIN_PATH = fileURLToPath(new URL("../../bin/gateway.js", import.meta.url));
