import type { Command } from "commander";
import ms from "ms";
import { ECHO_UPSTREAM, shownKind, type UpstreamConfig } from "../../config/index.js";
import { FailedError } from "../../errors/index.js";
import { logFilePath } from "../../request-log/log-file.js";
import { liveGateways, type LiveGateway } from "../../running/find-gateway.js";
import { askKeyStates } from "../../running/probe-health.js";
import { budgetWords } from "../../team/catalog.js";
import { readKeyRefusals, readStoredCatalogs } from "../../team/catalog-store.js";
import { configChangedSince } from "../../running/stale-config.js";
import { createContext, localKeyOf, portFlag, type CommandContext } from "../context.js";
import { chooseGateway, notYours, portArg } from "../running-gateway.js";
import { baseUrlNotices } from "../base-url-notice.js";
import { log, print } from "../terminal.js";
import { describeGatewayKey, describeKey, keyFix, type KeyState } from "../upstream-keys.js";

/** `pid 13984, up 12 minutes`: what a gateway's record and health say about its process. */
function processLabel(gateway: Pick<LiveGateway, "health" | "record">): string {
  const pid = gateway.record?.pid ?? gateway.health.pid;
  const uptime = gateway.record ? `up ${ms(Date.now() - Date.parse(gateway.record.startedAt), { long: true })}` : undefined;
  const parts = [pid ? `pid ${pid}` : undefined, uptime].filter(Boolean);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

/** What sets another running gateway apart: the config directory it serves (when not this one), or its local key. */
function alsoNote(gateway: LiveGateway): string {
  if (!gateway.thisConfig && gateway.record?.configDir) return `, for the config directory ${gateway.record.configDir}`;
  return gateway.owner === "other" ? ", with another local key" : "";
}

const mark = (key: Pick<KeyState, "ok">) => (key.ok === false ? "✖ " : "");

/** Each of several keys on a line of its own (SPEC 11, Several keys): its name, and whether it is there. */
const eachKey = (key: KeyState): string[] => (key.keys ?? []).map((one) => `${mark(one)}${one.name}: ${one.text}`);

/**
 * The configured upstreams, their kinds and keys: two lines for one upstream (and one per key of several), a table for
 * several. The table's module loads only then: measuring wide characters (string-width) costs a cold `status` some
 * 20-30 ms of CPU (issue 52).
 */
async function printUpstreams(ctx: CommandContext, upstreams: readonly UpstreamConfig[], keys: readonly KeyState[]): Promise<void> {
  if (upstreams.length === 0) {
    log.log("Upstreams: not known until config.json can be read");
    return;
  }
  if (upstreams.length === 1) {
    log.log(`Upstream:  ${upstreams[0]!.url}`);
    log.log(`Key:       ${mark(keys[0]!)}${keys[0]!.text}`);
    for (const line of eachKey(keys[0]!)) log.log(`             ${line}`);
    return;
  }
  const rows = upstreams.flatMap((upstream, i) => [
    [
      `  ${upstream.name}${upstream.name === ctx.config.defaultUpstream ? " (default)" : ""}`,
      shownKind(upstream),
      upstream.url === ECHO_UPSTREAM ? "echo" : upstream.url,
      upstream.formats.join(","),
      `${mark(keys[i]!)}${keys[i]!.text}`,
    ],
    ...eachKey(keys[i]!).map((line) => ["", "", "", "", `  ${line}`]),
  ]);
  const { formatTable } = await import("../table.js");
  log.log(`Upstreams:\n${formatTable([{ title: "  NAME" }, { title: "KIND" }, { title: "URL" }, { title: "FORMATS" }, { title: "KEY" }], rows)}`);
}

/**
 * What `status --json` says of a team upstream: its kept catalog's size and age, whether it is stale, its budget, and
 * whether the team gateway refused the key at the last read (its status and when).
 */
function teamJson(ctx: CommandContext, name: string) {
  const catalog = readStoredCatalogs(ctx.config.stateDir)[name];
  const keyRefused = readKeyRefusals(ctx.config.stateDir)[name] ?? null;
  const kept = catalog ? { models: catalog.models.length, readAt: catalog.readAt, unreadAt: catalog.unreadAt ?? null, budget: catalog.budget ?? null } : { models: null, readAt: null, unreadAt: null, budget: null };
  return { ...kept, keyRefused };
}

/**
 * The lines of each team upstream (SPEC 12): its catalog, whether the team gateway could not be read since, its
 * budget; first, when the team gateway refused the key at the last read, that (never the key, nor the team's words).
 */
function teamLines(ctx: CommandContext, upstreams: readonly UpstreamConfig[]): { refused: string[]; catalogs: string[] } {
  const stored = readStoredCatalogs(ctx.config.stateDir);
  const refusals = readKeyRefusals(ctx.config.stateDir);
  const team = upstreams.filter((upstream) => upstream.team);
  const refused = team.flatMap(({ name }) => {
    const refusal = refusals[name];
    return refusal ? [`The team gateway ${name} refused its key (HTTP ${refusal.status}, at ${refusal.at}): store the right one with \`gateway login ${name}\`, then \`gateway catalog --refresh\`.`] : [];
  });
  const catalogs = team.map((upstream) => {
    const catalog = stored[upstream.name];
    if (!catalog) return `Team:      ${upstream.name}: no catalog read yet (gateway catalog --refresh reads it)`;
    const stale = catalog.unreadAt ? `; it could not be read at ${catalog.unreadAt}, so that one is in use` : "";
    const budget = budgetWords(catalog);
    return `Team:      ${upstream.name}: catalog of ${catalog.models.length} models read ${catalog.readAt}${stale}${budget ? `; ${budget}` : ""}`;
  });
  return { refused, catalogs };
}

/**
 * `status --json`: the running gateway (or null), and each configured upstream with its kind, the formats in effect
 * and where its key comes from (never the key).
 */
function statusJson(ctx: CommandContext, upstreams: readonly UpstreamConfig[], keys: readonly KeyState[], running: Awaited<ReturnType<typeof chooseGateway>>) {
  const { health, port, record } = running;
  return {
    gateway: health && running.owner !== "other" ? { url: `http://127.0.0.1:${port}`, port, pid: record?.pid ?? health.pid, version: health.version } : null,
    upstreams: upstreams.map((upstream, i) => ({
      name: upstream.name,
      kind: shownKind(upstream),
      url: upstream.url,
      formats: upstream.formats,
      default: upstream.name === ctx.config.defaultUpstream,
      ...(upstream.team ? { team: teamJson(ctx, upstream.name) } : {}),
      key: { ok: keys[i]!.ok ?? null, text: keys[i]!.text, ...(keys[i]!.keys ? { keys: keys[i]!.keys } : {}) },
    })),
    config: ctx.config.configFile,
    log: logFilePath(ctx.config.stateDir),
  };
}

export function registerStatus(program: Command): void {
  program
    .command("status")
    .description("say whether a gateway is running, which upstreams are configured and whether their keys are there")
    .option("-p, --port <n>", "the gateway on this port (default: the running one, else the configured port)")
    .option("--json", "print it as one JSON object on stdout (still exits 1 when no gateway is running)")
    .addHelpText("after", "\nExits 1 when no gateway of yours is running.\n\nExamples:\n  gateway status\n  gateway status --json")
    .action(async (options: { port?: string; json?: boolean }) => {
      const ctx = createContext({}, { fileProblems: "warn" });
      const flag = portFlag(options.port);
      // Without config.json the upstreams would be the defaults, not the user's: none is listed rather than wrong ones.
      const upstreams = ctx.fileProblem ? [] : ctx.config.upstreams;
      const live = await liveGateways(ctx.config, localKeyOf(ctx));
      const running = await chooseGateway(ctx, flag, live);
      // A running gateway's keys are its own to tell (its keychain session, its environment); this shell's are read
      // only when it does not say (none runs, or one too old to be asked).
      const told = running.health && running.owner !== "other" ? await askKeyStates(running.port, localKeyOf(ctx)) : undefined;
      const keys = await Promise.all(
        upstreams.map((upstream) => {
          const state = told?.find((entry) => entry.name === upstream.name);
          return state ? describeGatewayKey(ctx, upstream, state) : describeKey(ctx, upstream);
        }),
      );
      if (options.json) print(JSON.stringify(statusJson(ctx, upstreams, keys, running)));
      else {
        await printUpstreams(ctx, upstreams, keys);
        const team = teamLines(ctx, upstreams);
        for (const line of team.catalogs) log.log(line);
        for (const line of team.refused) log.warn(line);
        for (const notice of baseUrlNotices(ctx.config)) log.info(notice);
        log.log(`Config:    ${ctx.config.configFile}`);
        log.log(`Log:       ${logFilePath(ctx.config.stateDir)}`);
      }
      const { health, port } = running;
      if (running.owner === "other") throw await notYours(ctx, port);
      if (!health) throw new FailedError(`No gateway is running on port ${port}.`, { hint: `Start one with \`gateway start${portArg(flag)}\` (or \`gateway start --detach${portArg(flag)}\`).` });
      if (options.json) return;
      const url = `http://127.0.0.1:${port}`;
      const keyless = upstreams.filter((_, i) => keys[i]!.ok === false);
      const line = `Gateway ${health.version} is running on ${url}${processLabel({ health, record: running.record })}, upstream: ${health.upstream}.`;
      if (keyless.length === 0) log.success(line);
      else {
        const where = upstreams.length === 1 ? "every request gets 503" : `requests routed to ${keyless.map((upstream) => upstream.name).join(", ")} get 503`;
        log.warn(`${line} But ${where}: no upstream key.`);
        log.info(keyless.map((upstream) => keyFix(ctx, upstream)).join(" "));
      }
      if (running.record && !ctx.fileProblem && configChangedSince(ctx.config.configDir, running.record.startedAt)) {
        log.warn(`It reads an older config: ${ctx.config.configFile} changed after it started. \`gateway stop${portArg(flag)} && gateway start --detach${portArg(flag)}\` makes it read the file again.`);
      }
      log.log(`  Dashboard: ${url}/ui/ (\`gateway ui${portArg(flag)}\` opens it with the key)`);
      if (running.record?.capture) log.log(`  Capture:   ${running.record.capture === "off" ? "off" : `${running.record.capture} (bodies kept in memory: the dashboard, gateway logs --show)`}`);
      const others = live.filter((gateway) => gateway.port !== port);
      for (const other of others) log.log(`  Also running: http://127.0.0.1:${other.port}${processLabel(other)}${alsoNote(other)} (-p ${other.port})`);
    });
}
