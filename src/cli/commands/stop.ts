import type { Command } from "commander";
import { removeGatewayRecord } from "../../running/gateway-record.js";
import { stopProcess } from "../../running/stop-gateway.js";
import { createContext, portFlag } from "../context.js";
import { chooseGateway, notYours } from "../running-gateway.js";
import { log } from "../terminal.js";

export function registerStop(program: Command): void {
  program
    .command("stop")
    .description("stop the running gateway (graceful: open requests may finish for up to 10 s)")
    .option("-p, --port <n>", "the gateway on this port (default: the most recently started one)")
    .addHelpText("after", "\nExamples:\n  gateway stop\n  gateway stop -p 9000")
    .action(async (options: { port?: string }) => {
      const ctx = createContext({}, { fileProblems: "warn" });
      const running = await chooseGateway(ctx, portFlag(options.port));
      if (running.owner === "other" && !running.record) throw await notYours(ctx, running.port);
      const pid = running.record?.pid ?? running.health?.pid;
      if (!running.health || pid === undefined) {
        log.info(`No gateway is running${running.via === "flag" ? ` on port ${running.port}` : ""}.`);
        return;
      }
      log.start(`Stopping the gateway on http://127.0.0.1:${running.port} (pid ${pid}) ...`);
      const killed = await stopProcess(pid);
      removeGatewayRecord(ctx.config.stateDir, running.port, pid);
      log.success(killed ? `Gateway ${pid} did not stop within 15 s and was killed.` : `Gateway ${pid} stopped.`);
    });
}
