import type { Command } from "commander";
import { CliError } from "../../errors.js";
import { logFilePath } from "../../request-log/log-file.js";
import { createContext, describeKeySource } from "../context.js";
import { probeHealth } from "../probe-health.js";
import { log } from "../terminal.js";

export function registerStatus(program: Command): void {
  program
    .command("status")
    .description("say whether a gateway is running, which upstream is configured and whether a key is stored")
    .addHelpText("after", "\nExample:\n  gateway status")
    .action(async () => {
      const ctx = createContext();
      const [health, key] = await Promise.all([probeHealth(ctx.config.port), describeKeySource(ctx)]);
      log.log(`Upstream:  ${ctx.config.upstream}`);
      log.log(`Key:       ${key.text}`);
      log.log(`Config:    ${ctx.config.configFile}`);
      log.log(`Log:       ${logFilePath(ctx.config.stateDir)}`);
      if (!health) {
        throw new CliError(`No gateway is running on port ${ctx.config.port}.`, { hint: "Start one with `gateway start`." });
      }
      log.success(`Gateway ${health.version} is running on http://127.0.0.1:${ctx.config.port} (upstream: ${health.upstream}).`);
    });
}
