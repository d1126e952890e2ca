import type { Command } from "commander";
import { createContext, localKeyOf, portFlag } from "../context.js";
import { ensureGateway } from "../ensure-gateway.js";
import { noDisplay, openBrowser } from "../open-browser.js";
import { log, print } from "../terminal.js";

export function registerUi(program: Command): void {
  program
    .command("ui")
    .description("open the live dashboard of the running gateway (starting one in the background if none runs)")
    .option("-p, --port <n>", "the gateway on this port")
    .option("--no-open", "print the URL instead of opening a browser")
    .addHelpText(
      "after",
      "\nThe URL carries the local key in its fragment (#key=...), which browsers never send in a request. Where no\nbrowser can be opened (no display, or the launcher fails), the URL is printed as with --no-open.\n\nExamples:\n  gateway ui\n  gateway ui --no-open",
    )
    .action(async (options: { port?: string; open: boolean }) => {
      const ctx = createContext();
      const port = await ensureGateway(ctx, portFlag(options.port));
      const url = `http://127.0.0.1:${port}/ui/#key=${localKeyOf(ctx)}`;
      if (!options.open) return print(url);
      const failed = noDisplay() ?? (await openBrowser(url));
      if (failed) {
        log.warn(`Could not open a browser: ${failed}. Open this URL in one (it holds your local key):`);
        return print(url);
      }
      log.success(`Opened the dashboard of http://127.0.0.1:${port} in your browser.`);
    });
}
