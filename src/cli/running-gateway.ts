import { GatewayProcessError } from "../errors/index.js";
import { findGateway, type ChosenGateway, type LiveGateway } from "../running/find-gateway.js";
import { suggestPort } from "../running/free-port.js";
import { localKeyOf, type CommandContext } from "./context.js";

/** The gateway a command talks to (SPEC section 6), and whether it is this user's; `live` when already listed. */
export const chooseGateway = (ctx: CommandContext, flag: number | undefined, live?: readonly LiveGateway[]): Promise<ChosenGateway> =>
  findGateway(ctx.config, flag, localKeyOf(ctx), live);

/** ` -p 9000` when the user named a port, so that a hint's command runs against the same gateway. */
export const portArg = (flag: number | undefined): string => (flag === undefined ? "" : ` -p ${flag}`);

/**
 * A gateway answers on `port`, but it does not accept this user's local key: another user's (another HOME), or one
 * started with another config directory or GATEWAY_LOCAL_KEY. Tools pointed there would get 401.
 */
export async function notYours(ctx: CommandContext, port: number): Promise<GatewayProcessError> {
  const free = await suggestPort(ctx.config.host, port);
  return new GatewayProcessError(
    `The gateway on port ${port} is not yours: it does not accept your local key (it is another user's, or was started with another config directory or GATEWAY_LOCAL_KEY).`,
    { hint: `Start your own on a free port: \`gateway start --detach --port ${free}\` (env, run, status and ui then find it).` },
  );
}
