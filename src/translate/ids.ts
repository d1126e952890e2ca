import { randomBytes } from "node:crypto";
import type { IdSource } from "./types.js";

/** Random ids with the format's prefix (`msg_`, `toolu_`, `resp_`, `fc_`, `call_`): 24 hex characters, as unguessable as Anthropic's own. */
export const randomIds: IdSource = (prefix) => `${prefix}${randomBytes(12).toString("hex")}`;
