import { readFileSync } from "node:fs";
import { scripted } from "./chat-script.js";
import type { Script, ScriptedReply, Received } from "./fake-upstream.js";

/**
 * Scripts that answer as Ollama, vLLM, llama.cpp, LM Studio and LiteLLM do on their real paths, from the fixtures in
 * test/fixtures/kinds (each names its provenance): their describing endpoints, their model lists, their 400s to an
 * empty body, their own "no such route" replies, and, for a body that asks for one, a chat completion.
 */

interface Reply {
  status: number;
  json?: unknown;
  text?: string;
  contentType?: string;
  echoPath?: boolean;
}

interface Route extends Partial<Reply> {
  method: string;
  path: string;
  emptyBody?: Reply;
  public?: boolean;
}

export interface ServerFixture {
  source: string;
  key?: string;
  /** Path prefixes a key guards (vLLM's); without it, every route not marked public. */
  guarded?: string[];
  routes: Route[];
  unauthorized?: Reply;
  unknown: Reply;
}

export const serverFixture = (name: string): ServerFixture =>
  JSON.parse(readFileSync(new URL(`../fixtures/kinds/${name}-routes.json`, import.meta.url), "utf8")) as ServerFixture;

function answer(reply: Reply, request: Received): ScriptedReply {
  if (reply.text !== undefined) return { status: reply.status, headers: { "content-type": reply.contentType ?? "text/plain" }, chunks: [reply.text] };
  // LM Studio names the method and path it does not serve in its 200.
  const json = reply.echoPath ? { error: `Unexpected endpoint or method. (${request.method} ${request.path})` } : reply.json;
  return { status: reply.status, json };
}

/**
 * The fixture's server as a script. `apiKey` makes it demand `Authorization: Bearer <key>` on every route not marked
 * public (LiteLLM's virtual keys; vLLM started with `--api-key` guards every `/v1` path).
 */
export function kindServer(fixture: ServerFixture, apiKey = fixture.key): Script {
  return (request) => {
    const route = fixture.routes.find((candidate) => candidate.method === request.method && candidate.path === request.path);
    const guarded = apiKey !== undefined && (fixture.guarded ? fixture.guarded.some((prefix) => request.path.startsWith(prefix)) : !route?.public);
    if (guarded && request.headers.authorization !== `Bearer ${apiKey}`) return answer(fixture.unauthorized ?? { status: 401, json: { error: "Unauthorized" } }, request);
    if (!route) return answer(fixture.unknown, request);
    if (route.emptyBody) return request.raw.toString() === "{}" ? answer(route.emptyBody, request) : scripted({ text: "hello from the local model" })(request);
    return answer({ status: route.status ?? 200, json: route.json }, request);
  };
}

/** Whether any request the server got could have generated something: a POST with more than `{}`. */
export const generations = (received: readonly Received[]) => received.filter((request) => request.method === "POST" && request.raw.toString() !== "{}");
