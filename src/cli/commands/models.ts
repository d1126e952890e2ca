import { Option, type Command } from "commander";
import { requestUpstream } from "../../chat/upstream-request.js";
import { FAMILY_NAMES, familyNamed, type FamilyName, type ModelRow } from "../../families/index.js";
import { parseJsonObject } from "../../parse-json.js";
import { openUpstream } from "../../upstream/open-upstream.js";
import { createContext, resolveKeySource } from "../context.js";
import { redact } from "../secrets.js";
import { formatTable } from "../table.js";
import { print } from "../terminal.js";

/** A plain aligned table: id, name or owner, creation date; aliases say what they map to. */
export function modelTable(rows: readonly ModelRow[]): string {
  return formatTable([{ title: "ID" }, { title: "NAME" }, { title: "CREATED" }], rows.map((m) => [m.id, m.name, m.created]));
}

export function registerModels(program: Command): void {
  program
    .command("models")
    .description("list the upstream's model catalog and the configured aliases")
    .addOption(new Option("--api <style>", "which catalog shape to ask for").choices(FAMILY_NAMES).default("chat"))
    .option("--json", "print the upstream's list as is")
    .addHelpText("after", "\nExamples:\n  gateway models\n  gateway models --api gemini --json")
    .action(async (options: { api: FamilyName; json?: boolean }) => {
      const ctx = createContext();
      const family = familyNamed(options.api);
      const upstream = await openUpstream(ctx.config, await resolveKeySource(ctx));
      try {
        const reply = await requestUpstream(upstream.client, ctx.config, family, { method: "GET", path: family.models.path, signal: AbortSignal.timeout(60_000) });
        const text = redact(await reply.body.text());
        if (options.json) return print(text);
        const catalog = family.models.rows(parseJsonObject(text) ?? {});
        const aliases = Object.entries(ctx.config.models).map(([id, target]) => ({ id, name: `alias -> ${target}`, created: "" }));
        const rows = [...catalog, ...aliases];
        print(rows.length ? modelTable(rows) : "The upstream lists no models.");
      } finally {
        await upstream.close();
      }
    });
}
