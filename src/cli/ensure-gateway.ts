import { GatewayProcessError } from "../errors/index.js";
import { spawnDetached } from "../running/detach.js";
import { BIN_PATH } from "./bin-path.js";
import type { CommandContext } from "./context.js";
import { chooseGateway, notYours, portArg } from "./running-gateway.js";
import { startupKeySources } from "./upstream-keys.js";
import { log } from "./terminal.js";

/**
 * The port of the gateway a command talks to (SPEC section 6), started detached first when none runs: what
 * `gateway run` and `gateway ui` do. With `start: false` a missing gateway is an error instead; so is a gateway
 * that is not this user's (its tools would get 401).
 */
export async function ensureGateway(ctx: CommandContext, flag: number | undefined, start = true): Promise<number> {
  const running = await chooseGateway(ctx, flag);
  if (running.owner === "other") throw await notYours(ctx, running.port);
  if (running.health) return running.port;
  if (!start) {
    throw new GatewayProcessError(`No gateway is running on port ${running.port}.`, { hint: `Start one with \`gateway start --detach${portArg(flag)}\`, or drop --no-start.` });
  }
  // Fail here, with the keychain's own message, rather than in a background process.
  await startupKeySources(ctx);
  const port = flag ?? ctx.config.port;
  const ready = await spawnDetached(BIN_PATH, ["--port", String(port)], ctx.config.stateDir, port);
  log.info(`Started a gateway in the background on ${ready.url} (pid ${ready.pid}); \`gateway stop${portArg(flag)}\` ends it.`);
  return ready.port;
}
