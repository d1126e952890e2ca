import type { Command } from "commander";
import { closest } from "../../config/closest.js";
import { keySpecs, type UpstreamConfig } from "../../config/index.js";
import { readConfigForEdit, withUpstreamEntry, writeConfigText } from "../../config/edit-config-file.js";
import { referencesTo } from "../../config/references.js";
import { FailedError, UsageError } from "../../errors/index.js";
import { createContext, type CommandContext } from "../context.js";
import { log } from "../terminal.js";
import { keychainAccount } from "../upstream-keys.js";

/** Whether to delete the removed entry's stored key: `--delete-key`, else the person's answer at a terminal, else no. */
async function deleteKey(flag: boolean, account: string): Promise<boolean> {
  if (flag) return true;
  if (!process.stdin.isTTY) return false;
  // The prompt library loads only when a question is asked.
  const { consola } = await import("consola");
  return (await consola.prompt(`Delete its key for ${account} from the OS keychain too?`, { type: "confirm", initial: false, cancel: "default" })) === true;
}

/** The keychain accounts of an upstream's keys (its origin, `#<label>` for a labelled one). */
const accountsOf = (upstream: UpstreamConfig): string[] => keySpecs(upstream.key).flatMap((spec) => (spec.kind === "keychain" ? [keychainAccount(upstream, spec.label)] : []));

/**
 * The removed entry's keychain keys (each of several too), deleted or kept as asked; one another entry still uses
 * (two upstreams on one origin share their keys) is always kept.
 */
async function handleKey(ctx: CommandContext, name: string, flag: boolean): Promise<void> {
  const upstream = ctx.config.upstreams.find((candidate) => candidate.name === name)!;
  for (const account of accountsOf(upstream)) {
    const sharing = ctx.config.upstreams.filter((other) => other.name !== name && accountsOf(other).includes(account));
    if (sharing.length) {
      log.info(`Its key for ${account} stays in the OS keychain: ${sharing.map((other) => other.name).join(", ")} use${sharing.length === 1 ? "s" : ""} it too.`);
      continue;
    }
    if (!(await deleteKey(flag, account))) {
      // The entry is gone, so only a URL (and its label) still names the key.
      const [origin, label] = account.split("#");
      log.info(`Its key for ${account} stays in the OS keychain: \`gateway logout --upstream ${origin}${label === undefined ? "" : ` --label ${label}`}\` deletes it.`);
      continue;
    }
    if (await ctx.store.delete(account)) log.success(`Deleted its key for ${account} from the OS keychain.`);
    else log.info(`No key was stored for ${account}.`);
  }
}

export function registerRemove(program: Command): void {
  program
    .command("remove")
    .description("remove an upstream from the config (and, when asked, its stored key)")
    .argument("<name>", "an entry of the config's `upstreams`")
    .option("--delete-key", "also delete its key from the OS keychain (without a terminal, the key is kept otherwise)")
    .addHelpText("after", "\nAn upstream another entry falls back to (or that `upstream` names) is not removed.\n\nExamples:\n  gateway remove ollama\n  gateway remove openrouter --delete-key")
    .action(async (name: string, options: { deleteKey?: boolean }) => {
      const ctx = createContext();
      const { text, fields } = readConfigForEdit(ctx.config.configFile);
      const names = Object.keys(fields.upstreams ?? {});
      if (!names.includes(name)) {
        const near = closest(name, names);
        throw new UsageError(`No upstream is called "${name}" in ${ctx.config.configFile}.${near ? ` Did you mean "${near}"?` : ""}`, {
          hint: names.length ? `Its upstreams are: ${names.join(", ")}.` : "It has no upstreams entries.",
        });
      }
      const places = referencesTo(name, fields);
      if (places.length) {
        throw new FailedError(`The upstream "${name}" is named in ${places.join(" and ")} of ${ctx.config.configFile}.`, { hint: `Take it out of ${places.join(" and ")} first, then remove it.` });
      }
      writeConfigText(ctx.config.configFile, withUpstreamEntry(text, name, undefined));
      log.success(`Removed upstream "${name}" from ${ctx.config.configFile}.`);
      await handleKey(ctx, name, options.deleteKey === true);
      log.info("A running gateway reads its config when it starts: gateway stop && gateway start --detach");
    });
}
