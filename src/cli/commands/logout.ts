import type { Command } from "commander";
import { ECHO_UPSTREAM, keySpecs } from "../../config/index.js";
import { UsageError } from "../../errors/index.js";
import { createContext } from "../context.js";
import { log } from "../terminal.js";
import { keychainAccount, keyLabel, keyWords, namedUpstream } from "../upstream-keys.js";

export function registerLogout(program: Command): void {
  program
    .command("logout")
    .description("remove an upstream's key from the OS keychain (the default upstream, or the one named)")
    .argument("[name]", "an upstream of the config's `upstreams` (default: the default upstream)")
    .option("--upstream <url>", "the upstream whose key to remove, by URL")
    .option("--label <label>", "remove one of its several keys: the one stored with `gateway login --label <label>`")
    .addHelpText("after", "\nExamples:\n  gateway logout\n  gateway logout openrouter\n  gateway logout openrouter --label work")
    .action(async (name: string | undefined, options: { upstream?: string; label?: string }) => {
      const ctx = createContext(options.upstream === undefined ? {} : { upstream: options.upstream });
      const upstream = name === undefined ? ctx.config.upstreams.find((u) => u.name === ctx.config.defaultUpstream)! : namedUpstream(ctx, name);
      if (upstream.url === ECHO_UPSTREAM) {
        if (name !== undefined) return log.info(`The upstream ${upstream.name} is the built-in echo upstream: it has no key.`);
        throw new UsageError("No upstream is configured, so there is no key to remove.", { hint: "Pass one: gateway logout --upstream <url>" });
      }
      const label = keyLabel(options.label);
      if (!keySpecs(upstream.key).some((spec) => spec.kind === "keychain") && label === undefined) return log.info(`The upstream ${upstream.name} keeps no key in the keychain: it ${keyWords(upstream)}.`);
      const account = keychainAccount(upstream, label);
      const removed = await ctx.store.delete(account);
      if (removed) log.success(`Removed the key for ${account} from the OS keychain.`);
      else log.info(`No key was stored for ${account}.`);
    });
}
