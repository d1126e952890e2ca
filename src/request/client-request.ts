import type { IncomingHttpHeaders } from "node:http";
import type { Endpoint, RequestFacts } from "../formats/index.js";
import { generic } from "../kinds/generic.js";
import { parseJsonObject } from "../parse-json.js";
import { knownClient, type KnownClient } from "../request-log/client-name.js";
import { countHubTokens, estimateHubTokens, hubTokenBounds } from "../translate/count-tokens.js";
import type { HubRequest } from "../translate/hub.js";
import { randomIds } from "../translate/ids.js";
import type { ReasoningSeal, ReplyHints, ToHub } from "../translate/index.js";
import { findRouteTags, mayHoldRouteTag, withoutRouteTags, type FoundTag } from "./route-tag.js";

type Json = Record<string, unknown>;

/** Not asked yet: the memo of a fact whose answer may itself be undefined. */
const UNASKED = Symbol("unasked");

/** A JSON object body whose parse was let go (`ClientRequest.release`): parsed again from the bytes if asked. */
const RELEASED = Symbol("released");

/**
 * A body known to be a JSON object, not parsed as UTF-8 yet: a passthrough request's body is only checked (SPEC 3.5)
 * from its latin1 text, and parsed the first time something reads its values (a translation, a route's question, a
 * token estimate). What the check parsed keeps the body's structure and its ASCII exactly (keys, roles, types), so
 * it can say where a route tag could be without decoding anything.
 */
export class CheckedAsLatin1 {
  constructor(readonly body: Json) {}
}

/**
 * The request as the client sent it, read once (`server/stages/read-request.ts`) and checked: what routing and
 * translation start from. Besides what was read, it answers what a router may ask of it (SPEC 11, Routes), each on
 * demand and kept: a passthrough request that no one asks about computes none of it. Questions about the body are
 * answered by its format (`WireFormat.facts`); a body that is not a format's JSON answers none (undefined).
 */
export class ClientRequest {
  /** What the client asked for, in its own family and format. */
  readonly endpoint: Endpoint;
  /** The query string as it came (`?beta=true`), `""` for none. */
  readonly query: string;
  readonly headers: IncomingHttpHeaders;
  #bytes: Buffer | undefined;
  /** The model the request names: the Gemini path's, else the body's `model`; undefined when it names none. */
  readonly model: string | undefined;
  /** Whether a model call asked for a stream (`"stream": true`, or Gemini's `:streamGenerateContent`). */
  readonly stream: boolean;
  /**
   * Whether it came with a credential of its own instead of the local key (SPEC 11, Your own login): it may reach only
   * upstreams that spend no credential of the gateway's, and its credential goes to `key: "client"` upstreams only.
   */
  readonly ownCredential: boolean;
  /** The body's size in bytes as it came, kept once the body is let go (`release`). */
  readonly size: number;
  #image: boolean | undefined | typeof UNASKED = UNASKED;
  #tools: readonly string[] | undefined | typeof UNASKED = UNASKED;
  #thinking: boolean | undefined | typeof UNASKED = UNASKED;
  #maxTokens: number | undefined | typeof UNASKED = UNASKED;
  #tags: readonly FoundTag[] | undefined;
  #hub: { made: ToHub<ReplyHints> } | { refused: unknown } | undefined | typeof UNASKED = UNASKED;
  #inputTokens: Promise<number | undefined> | undefined;
  #json: Json | undefined | CheckedAsLatin1 | typeof RELEASED;

  constructor(endpoint: Endpoint, query: string, headers: IncomingHttpHeaders, bytes: Buffer | undefined, json: Json | undefined | CheckedAsLatin1, model: string | undefined, stream: boolean, ownCredential = false) {
    this.endpoint = endpoint;
    this.query = query;
    this.headers = headers;
    this.#bytes = bytes;
    this.size = bytes?.length ?? 0;
    this.#json = json;
    this.model = model;
    this.stream = stream;
    this.ownCredential = ownCredential;
  }

  /** The body bytes exactly as they came (what a passthrough route sends on); undefined when there was none, or once released. */
  get bytes(): Buffer | undefined {
    return this.#bytes;
  }

  /** The body parsed, for model calls and counts; undefined for passthrough paths and bodies that are not a JSON object. */
  get json(): Json | undefined {
    if (this.#json instanceof CheckedAsLatin1 || this.#json === RELEASED) this.#json = parseJsonObject(this.#bytes?.toString("utf8") ?? "");
    return this.#json;
  }

  /**
   * Lets go of what the last plan no longer needs of the body (issue 53: one owner for the body), so that a long
   * conversation is not held two or three times over while its reply streams: the bytes, unless they are what goes
   * upstream (`keep.bytes`); the parse and the hub, unless the reply's record will read them (`keep.parse`). Whatever
   * is asked after all is made again from the bytes, if they were kept.
   */
  release(keep: { bytes: boolean; parse: boolean }): void {
    if (!keep.bytes) this.#bytes = undefined;
    if (keep.parse) return;
    if (this.#json !== undefined) this.#json = RELEASED;
    this.#hub = UNASKED;
  }

  /** The format's answer about the body, or undefined when there is no format's JSON to ask about. */
  #ask<T>(question: (facts: RequestFacts, body: Json) => T): T | undefined {
    const { format } = this.endpoint;
    return format && this.json ? question(format.facts, this.json) : undefined;
  }

  /** The coding tool that sent it, by its user agent: `claude-code`, `codex`, `gemini-cli`, `qwen-code`. */
  client(): KnownClient | undefined {
    return knownClient(this.headers["user-agent"]);
  }

  /** Claude Code's session (`x-claude-code-session-id`), which ties a request to the session that sent it. */
  sessionId(): string | undefined {
    const value = this.headers["x-claude-code-session-id"];
    return typeof value === "string" && value ? value : undefined;
  }

  /** Whether it holds an image, tool results included. */
  hasImage(): boolean | undefined {
    if (this.#image === UNASKED) this.#image = this.#ask((facts, body) => facts.hasImage(body));
    return this.#image;
  }

  /** The tools it declares, by name (a hosted tool such as web search by its type). */
  tools(): readonly string[] | undefined {
    if (this.#tools === UNASKED) this.#tools = this.#ask((facts, body) => facts.tools(body));
    return this.#tools;
  }

  /** Whether it asks for reasoning (messages `thinking`, `reasoning_effort`, `reasoning.effort`, `thinkingConfig`). */
  asksThinking(): boolean | undefined {
    if (this.#thinking === UNASKED) this.#thinking = this.#ask((facts, body) => facts.asksThinking(body));
    return this.#thinking;
  }

  /**
   * The output-token cap it asks for, when it sets one; asked only for a span (SPEC 12), never on the plain path, and
   * before the body is let go (`forward`), so that the span's end reads it without parsing the body again.
   */
  maxTokens(): number | undefined {
    if (this.#maxTokens === UNASKED) this.#maxTokens = this.#ask((facts, body) => facts.maxTokens(body));
    return this.#maxTokens;
  }

  /** The route tags that open its system prompt's texts or its first user message's, in that order. */
  routeTags(): readonly FoundTag[] {
    // Bytes without the tag's name hold no tag, unless a JSON `\u` escape spells it (`\u0067ateway-route`); nor does a
    // body whose checked text has no tag where one may stand (a session's files can name it anywhere else): a
    // passthrough body is then not decoded to look for one.
    if (this.#bytes !== undefined && this.#bytes.indexOf("gateway-route") < 0 && this.#bytes.indexOf("\\u") < 0) this.#tags ??= [];
    const checked = this.#json instanceof CheckedAsLatin1 ? this.#json.body : undefined;
    if (checked && this.endpoint.format && !mayHoldRouteTag(checked, this.endpoint.format.facts.tagPlaces(checked))) this.#tags ??= [];
    this.#tags ??= this.#ask((facts, body) => findRouteTags(body, facts.tagPlaces(body))) ?? [];
    return this.#tags;
  }

  /** The NAME of the first `<gateway-route>NAME</gateway-route>` that opens a text of its system prompt or first user message. */
  routeTag(): string | undefined {
    return this.routeTags()[0]?.name;
  }

  /** The body with every route tag removed (SPEC 11: none leaves the gateway), or undefined when it holds none. */
  withoutRouteTags(): Json | undefined {
    const tags = this.routeTags();
    return tags.length === 0 ? undefined : withoutRouteTags(this.json!, tags);
  }

  /**
   * Whether the estimate of its input tokens that a local count gives (SPEC 10 rule 6) is at least `min`: from the
   * estimate's bounds when they decide, which they do for all but requests near `min`; else from the estimate itself
   * (the tokenizer loads on first use). Undefined for a body that is not a format's JSON.
   */
  inputTokensAtLeast(min: number, seal: ReasoningSeal): boolean | Promise<boolean> | undefined {
    const loading = this.hubReadable();
    if (loading) return loading.then(() => this.inputTokensAtLeast(min, seal) ?? false);
    const hub = this.#hubRequest(seal);
    if (hub === undefined) return undefined;
    const { low, high } = hubTokenBounds(hub);
    if (low >= min || high < min) return low >= min;
    return this.inputTokens(seal).then((tokens) => tokens !== undefined && tokens >= min);
  }

  /**
   * The quick estimate of its input tokens (the local count's characters and fixed amounts, without the tokenizer),
   * for a reply that reported no usage (SPEC 11, Budgets), after `hubReadable`; undefined for a body the hub cannot read.
   */
  estimatedInputTokens(seal: ReasoningSeal): number | undefined {
    const hub = this.#hubRequest(seal);
    return hub === undefined ? undefined : estimateHubTokens(hub);
  }

  /** The estimate of its input tokens that a local count gives (SPEC 10 rule 6), counted by the tokenizer. */
  inputTokens(seal: ReasoningSeal): Promise<number | undefined> {
    this.#inputTokens ??= this.#countTokens(seal);
    return this.#inputTokens;
  }

  async #countTokens(seal: ReasoningSeal): Promise<number | undefined> {
    await this.hubReadable();
    const hub = this.#hubRequest(seal);
    return hub === undefined ? undefined : countHubTokens(hub);
  }

  /**
   * Loads what reading the body as the hub does needs, its format's translators (once per process: issue 52), when
   * they have not loaded yet; undefined when they have, or when the endpoint has no format.
   */
  hubReadable(): Promise<unknown> | undefined {
    const translators = this.endpoint.format?.translators;
    return translators && !translators.loaded ? translators.load() : undefined;
  }

  /**
   * The request as the hub reads it, with what its reply side needs: made once, by the token rules, the record's
   * estimate and the translation alike (issue 53: one hub per request). Undefined for a body that is not a format's
   * JSON; throws what the format refuses (the client's 400). Asked after `hubReadable`.
   */
  hub(seal: ReasoningSeal): ToHub<ReplyHints> | undefined {
    const hub = this.#madeHub(seal);
    if (hub !== undefined && "refused" in hub) throw hub.refused;
    return hub?.made;
  }

  /**
   * The request as the hub reads it (what a local count counts), or undefined for a body the hub cannot read (a
   * Responses request that continues a stored one): asking its size must not refuse a request that a native
   * upstream would take as it is.
   */
  #hubRequest(seal: ReasoningSeal): HubRequest | undefined {
    const hub = this.#madeHub(seal);
    return hub !== undefined && "made" in hub ? hub.made.request : undefined;
  }

  /**
   * The hub made as a translation and a local count make it (SPEC 10 rule 6): from the body the upstream is sent,
   * route tags removed, without Claude Code's billing line (no translated route keeps it), the path read (a
   * Responses compaction). What the format refused is kept, for a route that translates to answer.
   */
  #madeHub(seal: ReasoningSeal): { made: ToHub<ReplyHints> } | { refused: unknown } | undefined {
    if (this.#hub !== UNASKED) return this.#hub;
    const { format, kind, rest } = this.endpoint;
    // Translators that did not load (`hubReadable` failed): no hub, and none kept, so a later ask may still make it.
    const client = format?.translators.loaded?.client;
    if (!client) return undefined;
    this.#hub = undefined;
    const json = this.json && (this.withoutRouteTags() ?? this.json);
    if (!json) return undefined;
    const body = kind === "count" && format.count ? format.count.request(json) : json;
    const model = this.model ?? "";
    try {
      this.#hub = { made: client.toHub(body, { clientModel: model, upstreamModel: model, reasoningEffort: false, keepsBillingHeader: false, quirks: generic.quirks, seal, ids: randomIds, path: rest }) };
    } catch (refused) {
      this.#hub = { refused };
    }
    return this.#hub;
  }
}
