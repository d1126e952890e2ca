import type { Command } from "commander";
import { FailedError } from "../../errors/index.js";
import { installService, serviceSpec, serviceStatus, uninstallService, type ServiceReport } from "../../service/manage-service.js";
import { servicePlatform, type ServicePlatform } from "../../service/service-platform.js";
import { BIN_PATH } from "../bin-path.js";
import { log } from "../terminal.js";

const report: ServiceReport = { success: (line) => log.success(line), info: (line) => log.info(line), warn: (line) => log.warn(line) };

/** This machine's service manager; Windows has none the gateway writes for. */
function platform(): ServicePlatform {
  const found = servicePlatform();
  if (!found) throw new FailedError(`gateway service knows systemd (Linux) and launchd (macOS), not ${process.platform}.`, { hint: "Start the gateway with `gateway start --detach` instead." });
  return found;
}

export function registerService(program: Command): void {
  const service = program
    .command("service")
    .description("start the gateway with your login session: a systemd user unit (Linux) or a launchd agent (macOS)")
    .addHelpText("after", "\nExamples:\n  gateway service install\n  gateway service status\n  gateway service uninstall");
  service
    .command("install")
    .description("write the service file, enable it and start it (again, when the file changed)")
    .action(() => installService(platform(), serviceSpec(BIN_PATH), report));
  service
    .command("uninstall")
    .description("stop and disable the service and remove the file install wrote (nothing else)")
    .action(() => uninstallService(platform(), report));
  service
    .command("status")
    .description("whether the service is installed and running (exit 1 when it is not)")
    .action(() => serviceStatus(platform(), serviceSpec(BIN_PATH), report));
}
