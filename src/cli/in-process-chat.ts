import { openLocalGateway } from "../chat/in-process-gateway.js";
import type { LocalGateway } from "../chat/local-gateway.js";
import type { CommandContext } from "./context.js";
import { log } from "./terminal.js";
import { startupKeySources } from "./upstream-keys.js";

/**
 * The gateway's request path in this process, with the keychain's key sources: what `gateway chat` loads, with one
 * `import()`, only when no gateway of its configuration runs (each `import()` more splits the chunks it shares with
 * `gateway start` further, issue 52).
 */
export async function openInProcess(ctx: CommandContext): Promise<LocalGateway> {
  return openLocalGateway(ctx.config, await startupKeySources(ctx), (message) => log.warn(message));
}
