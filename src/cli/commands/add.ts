import type { Command } from "commander";
import { FLAG_SOURCE, type UpstreamConfig } from "../../config/index.js";
import { closest } from "../../config/closest.js";
import { isLoopbackHost } from "../../config/loopback.js";
import { readConfigForEdit, withUpstreamEntry, writeConfigText } from "../../config/edit-config-file.js";
import { fromEntry } from "../../config/resolve-upstreams.js";
import { UPSTREAM_NAME, upstreamKind, upstreamUrl, withScheme } from "../../config/schemas/base-url.js";
import type { UpstreamEntry } from "../../config/schemas/upstream-entry.js";
import { validateValue } from "../../config/validate-fields.js";
import { FailedError, UsageError } from "../../errors/index.js";
import { familyNameOf, FORMAT_NAMES, type Format } from "../../formats/names.js";
import { KIND_NAMES, KINDS, kindNamed, type Kind, type KindName } from "../../kinds/index.js";
import { HtmlServerError, probeFormats, probeModelList, recogniseServer, type ListedModel } from "../../upstream/probe-server.js";
import { askKey } from "../ask-key.js";
import { createContext, type CommandContext } from "../context.js";
import { refreshCatalogs } from "../../team/team-catalogs.js";
import { openUpstreams } from "../../upstream/upstream-set.js";
import { redact, rememberSecret, secrets } from "../secrets.js";
import { log } from "../terminal.js";
import { keychainAccount, keySources } from "../upstream-keys.js";

interface AddOptions {
  url?: string;
  models?: string[];
  /** `--key <source>`; false with `--no-key`: a server that needs no key, written as `"key": "none"`. */
  key?: string | false;
  probe: boolean;
  stdin?: boolean;
  force?: boolean;
  /** A team's gateway (SPEC 12): `"team": true`, and its catalog read at once. */
  team?: boolean;
}

/** Reads the new team upstream's catalog and says what it holds (SPEC 12); a failure is said, the entry stays. */
async function readNewCatalog(name: string): Promise<void> {
  const ctx = createContext();
  const upstreams = await openUpstreams(ctx.config, keySources(ctx), secrets);
  try {
    const { catalog, failure } = (await refreshCatalogs(upstreams.all.filter((upstream) => upstream.name === name), ctx.config.stateDir)).get(name)!;
    if (failure || !catalog) return log.warn(redact(`Its catalog could not be read: ${failure}`));
    const described = catalog.models.filter((model) => model.source === "model_info").length;
    log.success(`Its catalog: ${catalog.models.length} model${catalog.models.length === 1 ? "" : "s"}${described ? `, ${described} with context window and prices` : ""} (gateway catalog lists them).`);
  } finally {
    await upstreams.close();
  }
}

/** What the command line names: a kind (with `--url` or its usual address) or a URL (whose kind the probe finds). */
function target(word: string, url: string | undefined): { kind: Kind | undefined; url: string | undefined } {
  const checkUrl = (value: string, field: string) => {
    const checked = validateValue(FLAG_SOURCE, upstreamUrl, value, field);
    if (upstreamKind(checked) !== "url") throw new UsageError(`${field} must be a URL such as http://127.0.0.1:11434 (got "${value}").`, { hint: "gateway add --help lists the kinds." });
    return checked;
  };
  if ((KIND_NAMES as readonly string[]).includes(word)) return { kind: kindNamed(word as KindName), url: url === undefined ? undefined : checkUrl(url, "--url") };
  if (!word.includes("://")) {
    const near = withScheme(word) ?? closest(word, KIND_NAMES);
    throw new UsageError(`"${word}" is neither a kind of server nor a URL.${near ? ` Did you mean "${near}"?` : ""}`, { hint: `The kinds: ${KIND_NAMES.join(", ")}. Or give the server's URL.` });
  }
  if (url !== undefined) throw new UsageError("Give the URL once: as the first argument or with --url.", { hint: "gateway add ollama --url http://127.0.0.1:11500" });
  return { kind: undefined, url: checkUrl(word, "<kind|url>") };
}

/** The entry as it would be resolved, every field it leaves out taken from its kind and the top level. */
const resolved = (ctx: CommandContext, name: string, entry: UpstreamEntry): UpstreamConfig =>
  fromEntry(name, entry, { upstream: undefined, messagesSegment: ctx.config.messagesSegment, geminiSegment: ctx.config.geminiSegment, retries: ctx.config.retries, timeouts: ctx.config.timeouts, anthropicVersion: ctx.config.anthropicVersion });

/** Why the probe could not go on, as a failure that says what to do: a server that is not there, or not an API. */
function probeFailure(url: string, error: unknown): FailedError {
  if (error instanceof HtmlServerError) {
    return new FailedError(`${error.message}: it is a web page, not an API. Nothing was written.`, { hint: "Check the URL: the API's base address (without /v1), as its documentation gives it for OpenAI-compatible clients." });
  }
  return new FailedError(`Nothing answers at ${url} (${(error as Error).message}).`, { hint: "Start the server and run this again, or add it as it is with --no-probe." });
}

/** What the probe found: the formats to write (undefined: the kind's own, not probed) and the models it lists (undefined: it would not say). */
interface Probed {
  formats: Format[] | undefined;
  models: string[] | undefined;
}

/**
 * Which formats answer (for kinds a probe may post to) and which models the server lists, printed as found. A refused
 * key, a server with no format or one that answers with web pages fails, and nothing is written.
 */
async function probe(ctx: CommandContext, upstream: UpstreamConfig, kind: Kind, key: string | undefined): Promise<Probed> {
  let formats: Format[] | undefined;
  if (kind.probe.mayGenerate) {
    const answers = await probeFormats(upstream, key, FORMAT_NAMES).catch((error: unknown) => Promise.reject(probeFailure(upstream.url, error)));
    const guarded = answers.find((answer) => answer.answers === undefined);
    if (guarded && key === undefined) {
      throw new FailedError(`${upstream.url} wants a key (it answered ${guarded.status}).`, {
        hint: `Add it with its key: \`gateway add ${upstream.url} ${upstream.name} --no-probe\` asks for one; then set "kind": "${kind.name}" on the entry in ${ctx.config.configFile}.`,
      });
    }
    if (guarded) throw new FailedError(`${upstream.url} refused this key (${guarded.status}). Nothing was written.`, { hint: "Check the key and the URL, then run gateway add again." });
    const answering = answers.filter((answer) => answer.answers).map((answer) => answer.format);
    if (!answering.length) throw new FailedError(`No format answers at ${upstream.url}: ${answers.map((answer) => `${answer.format} ${answer.status}`).join(", ")}.`, { hint: "Check the URL (the base, without /v1), or add it as it is with --no-probe." });
    const silent = FORMAT_NAMES.filter((format) => !answering.includes(format));
    log.success(`Formats that answer: ${answering.join(", ")}${silent.length ? ` (not ${silent.join(", ")})` : ""}.`);
    // The kind's own formats among them: a local server's Responses or messages endpoint lacks what the tools send,
    // which the gateway's translation carries (docs/configuration.md, Upstream kinds); all of them when none of the kind's answers.
    const used = answering.filter((format) => kind.defaults.formats.includes(format));
    formats = used.length ? used : answering;
    if (formats.length < answering.length) log.info(`The entry uses ${formats.join(", ")}: ${kind.title}'s usual formats (list the others in its "formats" to use them).`);
  } else log.info(`Formats: ${upstream.formats.join(", ")} (${kind.title}'s; a probe never posts to a server that bills by token).`);
  const served = formats ?? [...upstream.formats];
  const family = served.some((format) => familyNameOf(format) === kind.modelList.family) ? kind.modelList.family : familyNameOf(served[0]!);
  const list = await probeModelList({ ...upstream, formats: served }, key, family).catch((error: unknown) => Promise.reject(probeFailure(upstream.url, error)));
  if (list.ok) log.success(listedModels(list.models));
  else if (list.refused) {
    throw new FailedError(`${upstream.url} refused ${key === undefined ? "a request without a key" : "this key"} (${list.status}${list.message ? `: ${list.message}` : ""}). Nothing was written.`, { hint: "Check the key and the URL, then run gateway add again." });
  } else log.warn(redact(`Its model list answered ${list.status}${list.message ? `: ${list.message}` : ""}.`));
  return { formats, models: list.ok ? list.models.map((model) => model.id) : undefined };
}

/**
 * At most this many listed models are written as a second upstream's `models`; a longer list (a provider's hundreds)
 * would bury the file, so the output says what to add instead (docs/configuration.md, Adding an upstream).
 */
const MODELS_WRITTEN = 20;

/** `--key`: `none` (a server that needs none), `keychain` (asked, stored) or `env:<VAR>` (read from the environment). */
function keyOption(value: string): string {
  if (value === "none" || value === "keychain" || /^env:[A-Za-z_][A-Za-z0-9_]*$/.test(value)) return value;
  throw new UsageError(`--key must be none, keychain or env:<VARIABLE> (got "${value}").`, { hint: "gateway add http://127.0.0.1:8080 --key none" });
}

/**
 * A kind named with `--url`: said aloud when the server there does not answer as that kind does (`gateway add vllm
 * --url <an Ollama>`). The entry is still written as asked; the probe's GETs cost nothing.
 */
async function checkKind(kind: Kind, url: string, ctx: CommandContext): Promise<void> {
  const found = await recogniseServer(resolved(ctx, "probe", { url })).catch((error: unknown) => Promise.reject(probeFailure(url, error)));
  if (found?.kind === kind) return;
  const what = found ? `it answers as ${found.kind.title}` : `nothing answers at ${kind.probe.recognise!.path} as ${kind.title} does`;
  log.warn(`${url} does not look like ${kind.title}: ${what}. Adding it as ${kind.name}, as asked (\`gateway add ${url}\` adds it as what it is).`);
}

/** Which requests reach the new upstream, said only as far as it is true: by default, by its models, or none yet. */
function reachLine(name: string, defaultUpstream: string, entry: UpstreamEntry, wroteFound: boolean, listed: number, file: string): string {
  if (defaultUpstream === name) return "It is the default upstream.";
  if (wroteFound) return `Requests for the ${listed === 1 ? "model" : `${listed} models`} it lists reach it (written as its "models"); every other model goes to the default upstream, ${defaultUpstream}.`;
  if (entry.models?.length) return `Requests for ${entry.models.join(", ")} reach it; every other model goes to the default upstream, ${defaultUpstream}.`;
  const why = listed > MODELS_WRITTEN ? `It lists ${listed} models, too many to write them all. ` : "";
  return `${why}No request reaches it yet (the default upstream is ${defaultUpstream}): add the model ids or patterns it serves to its "models" in ${file}, e.g. "models": ["qwen/*"], or run gateway add again with --force --models <pattern...>.`;
}

/** How many models a probe found, and the first few by id with the context window the server gave each. */
export function listedModels(models: readonly ListedModel[]): string {
  const shown = models.slice(0, LISTED_SHOWN).map((model) => (model.contextWindow === undefined ? model.id : `${model.id} (context window ${model.contextWindow} tokens)`));
  const more = models.length > LISTED_SHOWN ? `, and ${models.length - LISTED_SHOWN} more` : "";
  return `It lists ${models.length} model${models.length === 1 ? "" : "s"}${shown.length ? `: ${shown.join(", ")}${more}` : ""}.`;
}

/** The models `gateway add` names; a provider lists hundreds, which `gateway models` shows. */
const LISTED_SHOWN = 5;

export function registerAdd(program: Command): void {
  program
    .command("add")
    .description("add an upstream to the config: a kind of server or its URL, probed to find what it serves")
    .argument("<kind|url>", `a kind (${KIND_NAMES.join(", ")}) or a server's base URL, whose kind the probe recognises`)
    .argument("[name]", "the entry's name (default: the kind's)")
    .option("--url <url>", "the server's base URL, when it is not the kind's usual address")
    .option("--models <pattern...>", "model ids (or patterns with *) routed to it (default for a second upstream: the models it lists)")
    .option("--key <source>", "none (the server needs no key), keychain (asked and stored) or env:<VARIABLE> (default: the kind's)", keyOption)
    .option("--no-probe", "write the entry without asking the server anything")
    .option("--stdin", "read the key from standard input instead of asking")
    .option("--no-key", "the server needs no key (a LiteLLM without a master key): none is asked for or sent")
    .option("--team", "a team's gateway (LiteLLM, agentgateway, Portkey, ...): its catalog is read, its budget shown, each request attributed")
    .option("--force", "replace an entry of the same name")
    .addHelpText(
      "after",
      "\nExamples:\n  gateway add http://127.0.0.1:11434          (recognised as Ollama)\n  gateway add vllm --url http://gpu-box.localhost:8000\n  gateway add openrouter --models 'qwen/*' 'deepseek/*'\n  printf %s \"$KEY\" | gateway add litellm team --url https://litellm.example.com --stdin\n  gateway add http://127.0.0.1:4000 --no-key   (a LiteLLM without a master key)",
    )
    .action(async (word: string, givenName: string | undefined, options: AddOptions) => {
      const ctx = createContext();
      const given = target(word, options.url);
      let kind = given.kind;
      const url = given.url ?? kind?.defaults.url;
      if (url === undefined) throw new UsageError(`A ${kind!.name} upstream has no usual address.`, { hint: `Give it: gateway add ${kind!.name} --url http://localhost:4000` });
      if (!kind && options.probe) {
        const found = await recogniseServer(resolved(ctx, "probe", { url })).catch((error: unknown) => Promise.reject(probeFailure(url, error)));
        kind = found?.kind ?? KINDS.generic;
        if (found) log.success(`Found ${found.kind.title} at ${url}${found.detail ? ` (${found.detail})` : ""}.`);
        else log.info(`${url} is not a server the gateway recognises (Ollama, llama.cpp, vLLM, LM Studio, LiteLLM): adding it as generic.`);
      } else if (kind?.probe.recognise && given.url !== undefined && options.probe) await checkKind(kind, url, ctx);
      kind ??= KINDS.generic;
      const name = givenName ?? kind.name;
      if (!UPSTREAM_NAME.test(name) || name === "default" || name === "echo") throw new UsageError(`"${name}" cannot name an upstream: 1-32 characters of a-z, 0-9 and "-", not "default" or "echo".`);
      const { text, fields } = readConfigForEdit(ctx.config.configFile);
      if (fields.upstreams?.[name] && !options.force) {
        throw new FailedError(`An upstream called "${name}" is already in ${ctx.config.configFile}.`, { hint: `Give this one another name (gateway add ${word} ${name}-2), or replace it with --force.` });
      }
      // The URL is written when it is not the kind's usual address (which the entry then needs no word for).
      // `--no-key` (or `--key none`) says a server that would be asked for a key needs none (issue 49, finding 11: a
      // LiteLLM started without a master key); for a kind that needs none already, nothing needs saying.
      const keySource = options.key === false ? "none" : options.key;
      const entry: UpstreamEntry = {
        kind: kind.name,
        ...(url !== kind.defaults.url ? { url } : {}),
        ...(options.models?.length ? { models: options.models } : {}),
        ...(keySource !== undefined && keySource !== kind.defaults.key ? { key: keySource } : {}),
        ...(options.team ? { team: true } : {}),
      };
      const upstream = resolved(ctx, name, entry);
      let key: string | undefined;
      if (upstream.key.kind === "env") {
        key = ctx.env[upstream.key.variable]?.trim() || undefined;
        if (!key) throw new UsageError(`${upstream.key.variable} is not set.`, { hint: `Set it in this shell, then run gateway add again.` });
        rememberSecret(key);
      }
      if (upstream.key.kind === "keychain") {
        // Reach the keychain before asking: a key typed in for nothing is a bad first experience.
        await ctx.store.get(keychainAccount(upstream));
        if (isLoopbackHost(new URL(url).hostname)) log.info(`A server on this machine may need no key: then add it with --key none (gateway add ${word} --key none).`);
        key = await askKey(options.stdin === true, `Key for ${name} (${keychainAccount(upstream)}), input hidden:`);
        rememberSecret(key);
        if (!key) throw new UsageError("No key was given.", { hint: `Type or pipe the key; for a server that needs none, add it with --no-key (gateway add ${word} --no-key).` });
      }
      const probed = options.probe ? await probe(ctx, upstream, kind, key) : { formats: undefined, models: undefined };
      if (probed.formats) entry.formats = probed.formats;
      if (key !== undefined && upstream.key.kind === "keychain") await ctx.store.set(keychainAccount(upstream), key);
      writeConfigText(ctx.config.configFile, withUpstreamEntry(text, name, entry as Record<string, unknown>));
      const { defaultUpstream } = createContext().config;
      // A second upstream is reached by its models: the ones the probe found are written, unless the user named them.
      const found = probed.models ?? [];
      const writeFound = defaultUpstream !== name && !options.models?.length && found.length > 0 && found.length <= MODELS_WRITTEN;
      if (writeFound) {
        entry.models = found;
        writeConfigText(ctx.config.configFile, withUpstreamEntry(text, name, entry as Record<string, unknown>));
      }
      log.success(`Added upstream "${name}" (${kind.title}, ${url}) to ${ctx.config.configFile}:`);
      log.log(`  "${name}": ${JSON.stringify(entry)}`);
      if (key !== undefined && upstream.key.kind === "keychain") log.log(`  Its key is in the OS keychain (service "gateway", account ${keychainAccount(upstream)}).`);
      if (options.team) await readNewCatalog(name);
      log.log(`  ${reachLine(name, defaultUpstream, entry, writeFound, found.length, ctx.config.configFile)}`);
      log.info("A running gateway reads its config when it starts: gateway stop && gateway start --detach");
    });
}
