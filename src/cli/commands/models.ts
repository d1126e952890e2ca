import { Option, type Command } from "commander";
import { withAliases } from "../../formats/fields.js";
import { FAMILY_NAMES, familyNamed } from "../../formats/families.js";
import type { Family, FamilyName, ModelRow } from "../../formats/index.js";
import { statusError } from "../../upstream/error-message.js";
import { collectCatalog } from "../../upstream/model-catalog.js";
import { openUpstreams } from "../../upstream/upstream-set.js";
import { createContext } from "../context.js";
import { redact, secrets } from "../secrets.js";
import { formatTable } from "../table.js";
import { print } from "../terminal.js";
import { keySources } from "../upstream-keys.js";

/** One row of `gateway models`: the catalog's fields and the upstream that lists the id (an alias says what it maps to). */
export type CatalogRow = ModelRow & { upstream: string };

/**
 * A plain aligned table: id, the upstream that lists it (when there are several), owner (OpenAI's lists) or display
 * name (Anthropic's and Google's), creation date (left out when no entry has one: Google's lists give none).
 */
export function modelTable(rows: readonly CatalogRow[], withUpstream: boolean, family: Family): string {
  const upstream = withUpstream ? [{ title: "UPSTREAM" }] : [];
  const created = rows.some((m) => m.created) ? [{ title: "CREATED" }] : [];
  return formatTable(
    [{ title: "ID" }, ...upstream, { title: family.models.nameTitle }, ...created],
    rows.map((m) => [m.id, ...(withUpstream ? [m.upstream] : []), m.name, ...(created.length ? [m.created] : [])]),
  );
}

export function registerModels(program: Command): void {
  program
    .command("models")
    .description("list every upstream's model catalog (with the upstream of each id) and the configured aliases")
    .addOption(new Option("--api <style>", "which catalog shape to ask for").choices(FAMILY_NAMES).default("chat"))
    .option("--json", "print the union as GET /v1/models answers it")
    .addHelpText("after", "\nExamples:\n  gateway models\n  gateway models --api gemini --json")
    .action(async (options: { api: FamilyName; json?: boolean }) => {
      const ctx = createContext();
      const family = familyNamed(options.api);
      const upstreams = await openUpstreams(ctx.config, keySources(ctx), secrets);
      try {
        const catalog = await collectCatalog(upstreams, family, { headers: () => ({ "user-agent": "gateway-cli" }), version: undefined, signal: AbortSignal.timeout(60_000) });
        if (catalog.failure) {
          if ("error" in catalog.failure) throw catalog.failure.error;
          throw statusError(catalog.failure.upstream.name, catalog.failure.reply.status, await catalog.failure.reply.body.text().catch(() => ""));
        }
        const exact = Object.keys(ctx.config.models).filter((id) => !id.includes("*"));
        const list = withAliases(family, family.models.list(catalog.entries.map((entry) => entry.entry), {}), exact);
        if (options.json) return print(redact(JSON.stringify(list, null, 2)));
        const rows: CatalogRow[] = [
          ...catalog.entries.map((entry) => ({ ...family.models.row(entry.entry), upstream: entry.upstream })),
          ...Object.entries(ctx.config.models).map(([id, target]) => ({ id, name: `alias -> ${target}`, created: "", upstream: "" })),
        ];
        print(rows.length ? modelTable(rows, ctx.config.upstreams.length > 1, family) : "The upstreams list no models.");
        if (catalog.failed.length > 0) print(`\nNot listed (the upstream did not answer): ${catalog.failed.join(", ")}`);
      } finally {
        await upstreams.close();
      }
    });
}
