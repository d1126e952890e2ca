import type { UpstreamConfig } from "../config/index.js";
import { chatFamily, formatNamed, familyNamed, type Family, type FamilyName, type Format } from "../formats/index.js";
import { kindNamed, RECOGNISABLE, type Kind } from "../kinds/index.js";
import { parseJsonObject } from "../parse-json.js";
import { contextWindowOf } from "./context-windows.js";
import { createDispatcher } from "./create-dispatcher.js";
import { upstreamErrorMessage } from "./error-message.js";
import { refusesKey } from "./key-refusal.js";
import { noKeySource, staticKeySource } from "./key-source.js";
import { createUpstream, type Upstream } from "./upstream.js";

/**
 * What `gateway add` asks a server before it writes an entry (SPEC 11, Adding an upstream): which kind it is (from a
 * bare URL), which formats answer, how many models it lists. Every request here costs nothing: GETs of endpoints
 * that only describe the server, and, only to kinds that never bill (`probe.mayGenerate`), a POST of `{}` to each
 * format's generation endpoint, which names no model and no messages and so generates nothing.
 */

/** One probe request's time limit: a local server answers these at once. */
const PROBE_TIMEOUT_MS = 5_000;

/** A server recognised from a bare URL, and what its reply said of it (`version 0.12.3`). */
export interface Recognised {
  kind: Kind;
  detail: string;
}

/** The model list's answer: the models it lists (with the windows it gives), or the status and message of a refusal. */
export type ModelListAnswer = { ok: true; family: FamilyName; models: readonly ListedModel[] } | { ok: false; status: number; message: string | undefined; family: FamilyName; refused: boolean };

/** Whether a format's endpoint exists: `undefined` when the server refused to say (401/403 before routing). */
export interface FormatAnswer {
  format: Format;
  answers: boolean | undefined;
  status: number;
}

/** A throwaway upstream for `config` (no retries: a probe says what happened, it does not hide it). */
function probeUpstream(config: UpstreamConfig, key: string | undefined): Upstream {
  const base = new URL(config.url);
  return createUpstream({
    config: { ...config, retries: 0 },
    base,
    label: base.origin,
    keySource: key === undefined ? noKeySource : staticKeySource(key),
    dispatcher: () => createDispatcher(base, config.timeouts),
  });
}

async function request(upstream: Upstream, family: Family, method: string, path: string, body?: string) {
  const headers: Record<string, string> = body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" };
  const reply = await upstream.send({ family, method, path, headers, version: "2023-06-01", body: body === undefined ? undefined : Buffer.from(body), signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
  const text = await reply.body.text().catch(() => "");
  return { status: reply.status, text, html: isHtmlPage(reply.headers["content-type"], text) };
}

/**
 * Whether a reply is a web page rather than an API's answer: `text/html`, or a body that opens as an HTML document
 * (a web server's catch-all page, a router's login page). An API answers JSON, even to `{}` it refuses; a page that
 * answers every path would otherwise look like every format and a model list.
 */
export function isHtmlPage(contentType: string | string[] | undefined, text: string): boolean {
  const type = Array.isArray(contentType) ? contentType[0] : contentType;
  return /^\s*text\/html\b/i.test(type ?? "") || /^\s*<(!doctype\s+html|html)\b/i.test(text);
}

/** The refusal of a server that answered the probe with web pages: nothing is written and no key is asked. */
export class HtmlServerError extends Error {
  constructor(readonly url: string) {
    super(`${url} answers with HTML pages, not an API's JSON`);
  }
}

/**
 * The kind of the server at `config.url`, asking each recognisable kind's own endpoint without a key (all at once);
 * the first kind in `RECOGNISABLE` order whose endpoint answered 2xx as that server does. Undefined: none did (a
 * server that answers nothing at all throws the usual upstream error).
 */
export async function recogniseServer(config: UpstreamConfig): Promise<Recognised | undefined> {
  const upstream = probeUpstream(config, undefined);
  try {
    const replies = await Promise.allSettled(RECOGNISABLE.map((kind) => request(upstream, chatFamily, "GET", kind.probe.recognise!.path)));
    if (replies.every((reply) => reply.status === "rejected")) throw (replies[0] as PromiseRejectedResult).reason;
    if (replies.every((reply) => reply.status === "fulfilled" && reply.value.html)) throw new HtmlServerError(config.url);
    for (const [i, kind] of RECOGNISABLE.entries()) {
      const reply = replies[i]!;
      if (reply.status === "rejected" || reply.value.status < 200 || reply.value.status >= 300) continue;
      const body = parseJson(reply.value.text);
      if (kind.probe.recognise!.matches(body)) return { kind, detail: kind.probe.recognise!.describe(body) };
    }
    return undefined;
  } finally {
    await upstream.close();
  }
}

/** A JSON value of any type (LiteLLM's liveliness answer is a JSON string), or undefined. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The model an empty generation request names where a format's path must name one (Gemini's). */
const PROBE_MODEL = "gateway-probe";

/**
 * Whether a reply to `{}` shows the route exists: any answer but a route-absent one. Absent: 404/405/501 (gin's
 * "404 page not found", FastAPI's `{"detail":"Not Found"}`, llama.cpp's "File Not Found"), unless it is about a
 * model (a route that looked the model up exists), and LM Studio's 200 "Unexpected endpoint or method"
 * (lmstudio-ai/lmstudio-bug-tracker#2055). 401 and 403 say nothing: vLLM checks the key on every `/v1` path first.
 */
export function routeAnswers(status: number, text: string): boolean | undefined {
  if (status === 401 || status === 403) return undefined;
  if (/unexpected endpoint or method/i.test(text)) return false;
  if (status === 404 || status === 405 || status === 501) return /\bmodel/i.test(upstreamErrorMessage(text) ?? "");
  return true;
}

/** Which of `formats` answer at the server, by a POST of `{}` to each (only for kinds whose probe may post). */
export async function probeFormats(config: UpstreamConfig, key: string | undefined, formats: readonly Format[]): Promise<FormatAnswer[]> {
  const upstream = probeUpstream({ ...config, formats: [...formats] }, key);
  try {
    const replies = await Promise.all(
      formats.map(async (format) => {
        const { family, generatePath } = formatNamed(format);
        return { format, reply: await request(upstream, family, "POST", generatePath(PROBE_MODEL, false), "{}") };
      }),
    );
    if (replies.every(({ reply }) => reply.html)) throw new HtmlServerError(config.url);
    return replies.map(({ format, reply }) => ({ format, answers: !reply.html && routeAnswers(reply.status, reply.text), status: reply.status }));
  } finally {
    await upstream.close();
  }
}

/** A model a server lists, with the context window its list gives (under the kind's `modelList.contextField`). */
export interface ListedModel {
  id: string;
  contextWindow: number | undefined;
}

/** The server's model list in `family`'s shape: which models it lists (and their windows), or why it would not say. */
export async function probeModelList(config: UpstreamConfig, key: string | undefined, familyName: FamilyName): Promise<ModelListAnswer> {
  const family = familyNamed(familyName);
  const upstream = probeUpstream(config, key);
  try {
    const reply = await request(upstream, family, "GET", family.models.path);
    const list = parseJsonObject(reply.text);
    if (reply.status >= 200 && reply.status < 300 && list) {
      const { contextField } = kindNamed(config.kind).modelList;
      const models = family.models.entries(list).map((entry) => ({ id: family.models.row(entry).id, contextWindow: contextField === undefined ? undefined : contextWindowOf(entry, contextField) }));
      return { ok: true, family: familyName, models };
    }
    const message = reply.html ? "an HTML page, not a model list" : upstreamErrorMessage(reply.text);
    return { ok: false, status: reply.status, message, family: familyName, refused: refusesKey(reply.status, reply.text) };
  } finally {
    await upstream.close();
  }
}
