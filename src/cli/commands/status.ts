import type { Command } from "commander";
import ms from "ms";
import { ECHO_UPSTREAM } from "../../config/index.js";
import { FailedError } from "../../errors/index.js";
import { logFilePath } from "../../request-log/log-file.js";
import { findGateway } from "../../running/find-gateway.js";
import { createContext, portFlag } from "../context.js";
import { formatTable } from "../table.js";
import { log } from "../terminal.js";
import { describeKey } from "../upstream-keys.js";

export function registerStatus(program: Command): void {
  program
    .command("status")
    .description("say whether a gateway is running, which upstreams are configured and whether their keys are there")
    .option("-p, --port <n>", "the gateway on this port (default: the running one, else the configured port)")
    .addHelpText("after", "\nExample:\n  gateway status")
    .action(async (options: { port?: string }) => {
      const ctx = createContext();
      const { upstreams } = ctx.config;
      const [running, keys] = await Promise.all([findGateway(ctx.config, portFlag(options.port)), Promise.all(upstreams.map((upstream) => describeKey(ctx, upstream)))]);
      if (upstreams.length === 1) {
        log.log(`Upstream:  ${upstreams[0]!.url}`);
        log.log(`Key:       ${keys[0]!.text}`);
      } else {
        const rows = upstreams.map((upstream, i) => [
          `${upstream.name}${upstream.name === ctx.config.defaultUpstream ? " (default)" : ""}`,
          upstream.url === ECHO_UPSTREAM ? "echo" : upstream.url,
          upstream.formats.join(","),
          keys[i]!.text,
        ]);
        log.log(`Upstreams:\n${formatTable([{ title: "  NAME" }, { title: "URL" }, { title: "FORMATS" }, { title: "KEY" }], rows.map(([name, ...rest]) => [`  ${name}`, ...rest]))}`);
      }
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
