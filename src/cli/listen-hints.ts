import { isUnsafePort } from "get-port-please";
import { ListenError } from "../errors/index.js";
import { suggestPort } from "../running/free-port.js";
import type { CommandContext } from "./context.js";
import { chooseGateway, notYours } from "./running-gateway.js";

/**
 * A listen failure of `gateway start`, with the fix that fits who holds the port: a gateway of this user's (stop
 * it, or use it), someone else's gateway, or another program; a suggested port is one that is free now.
 */
export async function explainListenError(ctx: CommandContext, error: unknown): Promise<unknown> {
  if (!(error instanceof ListenError)) return error;
  const { host, port } = ctx.config;
  if ((error.cause as NodeJS.ErrnoException | undefined)?.code === "EADDRINUSE") {
    const holder = await chooseGateway(ctx, port);
    if (holder.owner === "other") return notYours(ctx, port);
    if (holder.health) {
      const pid = holder.record?.pid ?? holder.health.pid;
      return new ListenError(`A gateway of yours is already running on port ${port}${pid ? ` (pid ${pid})` : ""}.`, {
        hint: `Use it as it is (\`gateway status -p ${port}\`), or stop it first: \`gateway stop -p ${port}\`.`,
        cause: error,
      });
    }
    return new ListenError(`Port ${port} on ${host} is already in use by another program.`, {
      hint: `Free it (\`lsof -i :${port}\` shows which program), or start on a free port: \`gateway start --port ${await suggestPort(host, port)}\`.`,
      cause: error,
    });
  }
  if (port !== 0 && isUnsafePort(port)) {
    return new ListenError(error.message, { hint: `Choose another port: \`gateway start --port ${await suggestPort(host, port)}\` (or --port 0 for any free one).`, cause: error });
  }
  return error;
}
