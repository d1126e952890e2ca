import type { Command } from "commander";
import { requestUpstream } from "../../chat/upstream-request.js";
import { CliError } from "../../errors.js";
import { openUpstream } from "../../upstream/open-upstream.js";
import { createContext, resolveKeySource } from "../context.js";
import { formatTable } from "../table.js";
import { print } from "../terminal.js";

type ModelEntry = { id?: unknown; owned_by?: unknown; created?: unknown; display_name?: unknown; created_at?: unknown };

/** A plain aligned table: id, then owner or display name, then creation date. */
export function modelTable(models: readonly ModelEntry[]): string {
  const rows = models.map((m) => [
    String(m.id ?? ""),
    String(m.display_name ?? m.owned_by ?? ""),
    typeof m.created === "number" ? new Date(m.created * 1000).toISOString().slice(0, 10) : String(m.created_at ?? "").slice(0, 10),
  ]);
  return formatTable([{ title: "ID" }, { title: models.some((m) => m.display_name !== undefined) ? "NAME" : "OWNER" }, { title: "CREATED" }], rows);
}

export function registerModels(program: Command): void {
  program
    .command("models")
    .description("list the upstream's model catalog")
    .option("--api <style>", "chat or messages", "chat")
    .option("--json", "print the upstream's list as is")
    .addHelpText("after", "\nExample:\n  gateway models\n  gateway models --api messages --json")
    .action(async (options: { api: string; json?: boolean }) => {
      if (options.api !== "chat" && options.api !== "messages") {
        throw new CliError(`Unknown --api "${options.api}".`, { hint: "Use --api chat or --api messages.", exitCode: 2 });
      }
      const ctx = createContext();
      const upstream = await openUpstream(ctx.config, await resolveKeySource(ctx));
      try {
        const reply = await requestUpstream(upstream.client, ctx.config, options.api, { method: "GET", path: "/v1/models", signal: AbortSignal.timeout(60_000) });
        const text = await reply.body.text();
        if (options.json) return print(text);
        const data = (JSON.parse(text) as { data?: ModelEntry[] }).data ?? [];
        print(data.length ? modelTable(data) : "The upstream lists no models.");
      } finally {
        await upstream.close();
      }
    });
}
