import type { Command } from "commander";
import { formatUsd } from "../../request-log/format.js";
import { budgetWords } from "../../team/catalog.js";
import type { CatalogModel } from "../../upstream/team-catalog.js";
import { readStoredCatalogs } from "../../team/catalog-store.js";
import { liveGateways } from "../../running/find-gateway.js";
import { askCatalogRefresh } from "../../running/probe-health.js";
import { refreshCatalogs, type CatalogInUse } from "../../team/team-catalogs.js";
import { openUpstreams } from "../../upstream/upstream-set.js";
import { createContext, localKeyOf, type CommandContext } from "../context.js";
import { redact, secrets } from "../secrets.js";
import { formatTable } from "../table.js";
import { log, print } from "../terminal.js";
import { keySources } from "../upstream-keys.js";

/** A price per token as dollars per million tokens, the unit price lists use. */
const perMillion = (usdPerToken: number | undefined): string => (usdPerToken === undefined ? "-" : formatUsd(Math.round(usdPerToken * 1e6 * 1e4) / 1e4));

const row = (upstream: string, model: CatalogModel) => [
  model.id,
  upstream,
  model.source === "model_info" ? "/model/info" : "/v1/models",
  model.contextWindow?.toLocaleString("en-US") ?? "-",
  perMillion(model.inputUsdPerToken),
  perMillion(model.outputUsdPerToken),
  model.supports?.join(", ") ?? "",
];

/**
 * `--refresh` with this configuration's gateways running: each reads the team catalogs again itself and routes by
 * them at once (SPEC 12), so no restart is needed; what the first one read is shown. Undefined when none runs (or
 * none is new enough to be asked): the command reads them itself.
 */
async function refreshRunning(ctx: CommandContext): Promise<Map<string, CatalogInUse> | undefined> {
  const localKey = localKeyOf(ctx);
  const running = (await liveGateways(ctx.config, localKey)).filter((gateway) => gateway.thisConfig && gateway.owner === "yours");
  const answers = await Promise.all(running.map((gateway) => askCatalogRefresh(gateway.port, localKey)));
  const first = answers.find((answer) => answer !== undefined);
  if (running.length > 0) {
    const asked = answers.filter((answer) => answer !== undefined).length;
    const missed = running.length - asked;
    if (missed > 0) log.warn(`${missed} running gateway${missed === 1 ? "" : "s"} did not read the catalogs again (too old to be asked, or no answer in time): restart ${missed === 1 ? "it" : "them"} (gateway stop && gateway start --detach).`);
    if (asked > 0) log.info(`The running gateway${asked === 1 ? "" : "s"} read the catalogs again and route by them now.`);
  }
  return first && new Map(Object.entries(first));
}

export function registerCatalog(program: Command): void {
  program
    .command("catalog")
    .description("print each team upstream's catalog: model id, where it came from, context window, prices, capabilities")
    .option("--refresh", "read each team gateway's catalog again (and keep it) instead of the one kept")
    .option("--json", "print the catalogs as JSON")
    .addHelpText("after", '\nA team upstream is an "upstreams" entry with "team": true (gateway add <url> --team).\n\nExamples:\n  gateway catalog\n  gateway catalog --refresh --json')
    .action(async (options: { refresh?: boolean; json?: boolean }) => {
      const ctx = createContext();
      const team = ctx.config.upstreams.filter((upstream) => upstream.team);
      if (team.length === 0) return log.info('No upstream is a team\'s gateway: mark one with "team": true, or add it with gateway add <url> --team.');
      const stored = readStoredCatalogs(ctx.config.stateDir);
      const catalogs = new Map<string, CatalogInUse>(team.map((upstream) => [upstream.name, { catalog: stored[upstream.name] }]));
      // Read when asked, and for a team upstream whose catalog was never kept.
      const toRead = team.filter((upstream) => options.refresh || !stored[upstream.name]);
      const fromRunning = options.refresh ? await refreshRunning(ctx) : undefined;
      if (fromRunning) for (const [name, read] of fromRunning) catalogs.set(name, read);
      else if (toRead.length) {
        const upstreams = await openUpstreams(ctx.config, keySources(ctx), secrets);
        try {
          const reading = upstreams.all.filter((upstream) => toRead.some((asked) => asked.name === upstream.name));
          for (const [name, read] of await refreshCatalogs(reading, ctx.config.stateDir)) catalogs.set(name, read);
        } finally {
          await upstreams.close();
        }
      }
      for (const [name, { catalog, failure }] of catalogs) {
        if (failure) log.warn(redact(`${failure} ${catalog ? `The catalog read ${catalog.readAt} is shown.` : "No catalog of it was ever kept."}`));
        else if (!catalog) log.warn(`The catalog of ${name} was never read.`);
      }
      const read = [...catalogs.values()].flatMap(({ catalog }) => (catalog ? [catalog] : []));
      if (options.json) return print(JSON.stringify(Object.fromEntries(read.map((catalog) => [catalog.upstream, catalog])), null, 2));
      const rows = read.flatMap((catalog) => catalog.models.map((model) => row(catalog.upstream, model)));
      print(rows.length ? formatTable([{ title: "MODEL" }, { title: "UPSTREAM" }, { title: "FROM" }, { title: "WINDOW" }, { title: "IN $/M" }, { title: "OUT $/M" }, { title: "SUPPORTS" }], rows) : "The team catalogs list no models.");
      for (const catalog of read) {
        const budget = budgetWords(catalog);
        if (budget) print(`${catalog.upstream}: ${budget}${catalog.budget!.resetsAt ? ` (resets ${catalog.budget!.resetsAt})` : ""}`);
      }
    });
}
