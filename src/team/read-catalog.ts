import { familyNamed } from "../formats/families.js";
import type { Upstream } from "../upstream/upstream.js";
import { statusError } from "../upstream/error-message.js";
import type { TeamBudget, TeamCatalog } from "../upstream/team-catalog.js";
import { catalogModels, teamBudget } from "./catalog.js";

/** How long each read of a team gateway may take: a start waits for it, then goes on with the catalog kept. */
export const CATALOG_TIMEOUT_MS = 5_000;

type CatalogSource = Pick<Upstream, "name" | "config" | "send">;

/** GET `path` (under the chat family's layout, LiteLLM's own endpoints included): status and text. */
async function get(upstream: CatalogSource, path: string, timeoutMs: number): Promise<{ status: number; text: string }> {
  const reply = await upstream.send({ family: familyNamed("chat"), method: "GET", path, headers: { accept: "application/json" }, signal: AbortSignal.timeout(timeoutMs) });
  return { status: reply.status, text: await reply.body.text() };
}

const ok = (status: number) => status >= 200 && status < 300;

/**
 * The budget of the upstream's key from LiteLLM's `/key/info` (SPEC 12); undefined for another kind, or when it will
 * not say (a LiteLLM without a database answers 400). What it echoes of the key is read past, never kept.
 */
export async function readTeamBudget(upstream: CatalogSource, timeoutMs = CATALOG_TIMEOUT_MS): Promise<TeamBudget | undefined> {
  if (upstream.config.kind !== "litellm") return undefined;
  const info = await get(upstream, "/key/info", timeoutMs);
  return ok(info.status) ? teamBudget(info.text, new Date().toISOString()) : undefined;
}

/**
 * Reads a team gateway's catalog (SPEC 12): `GET /v1/models`, and for kind `litellm` its `/model/info` and
 * `/key/info`. A model list that is refused or fails throws the upstream's error, worded as `gateway chat` words it
 * (a refused key said so); `/model/info` and `/key/info` only add to it.
 */
export async function readTeamCatalog(upstream: CatalogSource, timeoutMs = CATALOG_TIMEOUT_MS): Promise<TeamCatalog> {
  const list = await get(upstream, "/v1/models", timeoutMs);
  if (!ok(list.status)) throw statusError(upstream.name, list.status, list.text);
  const litellm = upstream.config.kind === "litellm";
  const info = litellm ? await get(upstream, "/model/info", timeoutMs) : undefined;
  const budget = await readTeamBudget(upstream, timeoutMs);
  return { upstream: upstream.name, readAt: new Date().toISOString(), models: catalogModels(list.text, info && ok(info.status) ? info.text : undefined), budget };
}
