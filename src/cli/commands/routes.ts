import { readFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import type { Command } from "commander";
import { ApiError, FailedError, UsageError } from "../../errors/index.js";
import { claimPath } from "../../formats/index.js";
import { loadReasoningSeal } from "../../local-key/reasoning-secret.js";
import type { ClientRequest } from "../../request/client-request.js";
import { createModelAliases } from "../../routing/model-aliases.js";
import { reachOf } from "../../routing/model-reach.js";
import { createRouter, routableConfig } from "../../routing/router.js";
import { checkRequest } from "../../server/stages/read-request.js";
import { createContext, type CommandContext } from "../context.js";
import { keptTeamIds, keptWindowOf } from "../kept-team-ids.js";
import { describeWhen, explanationText, reachTable, rulesTable, tagLines } from "../routes-report.js";
import { print, readStdin } from "../terminal.js";

interface RoutesOptions {
  path: string;
  header: string[];
  userAgent?: string;
  model?: string;
  json?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** `name: value` headers, their names lower-cased as Node gives them to the server. */
function headersOf(options: RoutesOptions): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = { "content-type": "application/json" };
  for (const line of options.header) {
    const colon = line.indexOf(":");
    if (colon <= 0) throw new UsageError(`--header takes "name: value", not ${JSON.stringify(line)}.`);
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  if (options.userAgent !== undefined) headers["user-agent"] = options.userAgent;
  return headers;
}

function readRequestFile(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`, { hint: "Give a file holding a request body, or - to read one from standard input." });
  }
}

/** The request as the server would read it at this path (its checks included: a body they refuse is said so). */
function readAsServer(ctx: CommandContext, bytes: Buffer, options: RoutesOptions): ClientRequest {
  const segments = { messages: ctx.config.messagesSegment, gemini: ctx.config.geminiSegment };
  const [path, query = ""] = options.path.split("?", 2);
  const headers = headersOf(options);
  const endpoint = claimPath("POST", path!, headers, segments);
  if (!endpoint?.format) throw new UsageError(`POST ${options.path} is not a model call the gateway serves.`, { hint: "Give --path /v1/messages, /v1/chat/completions, /v1/responses or /v1beta/models/<model>:generateContent." });
  try {
    return checkRequest(headers, endpoint, query ? `?${query}` : "", bytes, true);
  } catch (error) {
    if (error instanceof ApiError) throw new FailedError(`The gateway would refuse this request (${error.status}): ${error.message}`);
    throw error;
  }
}

/**
 * `gateway routes`: the rules of `routes` in the order they are asked; with a request (a file, or `-` for stdin), a
 * dry run through the server's own reading and router: each rule's conditions held or failed, where it goes and what
 * model it sends, and the route tags removed (SPEC 11, Routes); with `--model`, every upstream a model can reach.
 */
export function registerRoutes(program: Command): void {
  program
    .command("routes")
    .description("list the routes, or show where a request would go and why (a dry run)")
    .argument("[request]", "a request body (JSON) to route: a file, or - for standard input")
    .option("--path <path>", "the path it is sent to", "/v1/messages")
    .option("-H, --header <header>", 'a request header, "name: value" (repeatable)', collect, [])
    .option("-A, --user-agent <agent>", "the user agent it is sent with (the client condition reads it)")
    .option("--model <id>", "every upstream a model id (or a pattern: claude*) can be routed to, and how")
    .option("--json", "print it as JSON")
    .addHelpText(
      "after",
      '\nExamples:\n  gateway routes\n  gateway routes request.json -A "claude-cli/2.1.197 (external, cli)"\n  echo \'{"model":"gpt-5","messages":[{"role":"user","content":"hi"}]}\' | gateway routes - --path /v1/chat/completions\n  gateway routes --model "claude*"',
    )
    .action(async (file: string | undefined, options: RoutesOptions) => {
      const ctx = createContext();
      const { routes } = ctx.config;
      if (options.model !== undefined) {
        const reach = reachOf(ctx.config, options.model, keptTeamIds(ctx));
        return print(options.json ? JSON.stringify(reach, null, 2) : reachTable(reach));
      }
      if (file === undefined) {
        if (options.json) return print(JSON.stringify(routes, null, 2));
        return print(routes.length > 0 ? rulesTable(routes) : `No routes: requests go by their model (the models lists), else to ${ctx.config.defaultUpstream}.`);
      }
      const bytes = file === "-" ? Buffer.from(await readStdin()) : readRequestFile(file);
      const request = readAsServer(ctx, bytes, options);
      const catalogued = keptTeamIds(ctx);
      const router = createRouter({
        upstreams: routableConfig(ctx.config),
        aliases: createModelAliases(ctx.config.models),
        routes,
        seal: loadReasoningSeal(ctx.config.configDir),
        catalogIds: (upstream) => catalogued.filter(([, name]) => name === upstream.name).map(([id]) => id),
        windowOf: keptWindowOf(ctx),
      });
      const explanation = await router.explain(request);
      const tags = request.routeTags();
      if (options.json) {
        const { route } = explanation;
        return print(
          JSON.stringify(
            {
              rules: explanation.rules.map(({ rule, held, conditions }) => ({ name: rule.name, when: describeWhen(rule.when), held, conditions })),
              route: { rule: route.rule, upstream: route.candidates[0]!.name, fallback: route.candidates.slice(1).map((u) => u.name), asked: route.asked, model: route.model, byModels: explanation.byModels },
              tags: tags.map((tag) => ({ name: tag.name, path: tag.path })),
            },
            null,
            2,
          ),
        );
      }
      const agent = request.headers["user-agent"];
      print(`POST ${options.path} (${request.endpoint.format!.name}), ${request.model === undefined ? "no model named" : `model ${request.model}`}${agent ? `, user agent ${JSON.stringify(agent)}` : ""}\n\n`);
      print([...explanationText(explanation), ...tagLines(tags, routes)].join("\n"));
    });
}
