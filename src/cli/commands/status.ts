import type { Command } from "commander";
import ms from "ms";
import { FailedError } from "../../errors/index.js";
import { logFilePath } from "../../request-log/log-file.js";
import { findGateway } from "../../running/find-gateway.js";
import { createContext, describeKeySource, portFlag } from "../context.js";
import { log } from "../terminal.js";

export function registerStatus(program: Command): void {
  program
    .command("status")
    .description("say whether a gateway is running, which upstream is configured and whether a key is stored")
    .option("-p, --port <n>", "the gateway on this port (default: the running one, else the configured port)")
    .addHelpText("after", "\nExample:\n  gateway status")
    .action(async (options: { port?: string }) => {
      const ctx = createContext();
      const [running, key] = await Promise.all([findGateway(ctx.config, portFlag(options.port)), describeKeySource(ctx)]);
      log.log(`Upstream:  ${ctx.config.upstream}`);
      log.log(`Key:       ${key.text}`);
      log.log(`Config:    ${ctx.config.configFile}`);
      log.log(`Log:       ${logFilePath(ctx.config.stateDir)}`);
      const { health, record, port } = running;
      if (!health) {
        throw new FailedError(`No gateway is running on port ${port}.`, { hint: "Start one with `gateway start` (or `gateway start --detach`)." });
      }
      const pid = record?.pid ?? health.pid;
      const uptime = record ? `, up ${ms(Date.now() - Date.parse(record.startedAt), { long: true })}` : "";
      log.success(`Gateway ${health.version} is running on http://127.0.0.1:${port}${pid ? ` (pid ${pid}${uptime})` : ""}, upstream: ${health.upstream}.`);
    });
}
