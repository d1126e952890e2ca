import type { Command } from "commander";
import { ECHO_UPSTREAM } from "../../config/index.js";
import { UsageError } from "../../errors/index.js";
import { createContext, keychainAccount } from "../context.js";
import { log } from "../terminal.js";

export function registerLogout(program: Command): void {
  program
    .command("logout")
    .description("remove the upstream key from the OS keychain")
    .option("--upstream <url>", "upstream whose key to remove (default: the configured one)")
    .addHelpText("after", "\nExample:\n  gateway logout")
    .action(async (options: { upstream?: string }) => {
      const ctx = createContext({ upstream: options.upstream });
      if (ctx.config.upstream === ECHO_UPSTREAM) {
        throw new UsageError("No upstream is configured, so there is no key to remove.", { hint: "Pass one: gateway logout --upstream <url>" });
      }
      const account = keychainAccount(ctx.config);
      const removed = await ctx.store.delete(account);
      if (removed) log.success(`Removed the key for ${account} from the OS keychain.`);
      else log.info(`No key was stored for ${account}.`);
    });
}
