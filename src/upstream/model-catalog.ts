import { UpstreamTimeoutError, UpstreamUnreachableError } from "../errors/index.js";
import type { Family } from "../formats/index.js";
import { parseJsonObject } from "../parse-json.js";
import type { HeaderMap } from "./header-policy.js";
import type { Upstream, UpstreamReply } from "./upstream.js";
import type { UpstreamSet } from "./upstream-set.js";

type Json = Record<string, unknown>;

/** One model of the union, in the asked shape, and the upstream that listed it first. */
export interface CatalogEntry {
  entry: Json;
  id: string;
  upstream: string;
}

/** The union of every upstream's catalog (SPEC section 10, Model lists). */
export interface Catalog {
  entries: CatalogEntry[];
  /** Upstreams that listed their models, in the order asked. */
  answered: string[];
  /** Upstreams that did not (an error status, no answer in time, no key), in the order asked. */
  failed: string[];
  /** What the default upstream answered when every upstream failed: its reply (passed through as it is) or its error. */
  failure: { upstream: Upstream; reply: UpstreamReply } | { upstream: Upstream; error: Error } | undefined;
}

/** How the catalogs are asked: the client's headers for each upstream (less compression and format headers) and its abort signal. */
export interface CatalogRequest {
  headers: (upstream: Upstream) => HeaderMap;
  version: string | undefined;
  signal: AbortSignal;
}

type Listing = { upstream: Upstream; entries: Json[] } | { upstream: Upstream; reply: UpstreamReply } | { upstream: Upstream; error: Error };

async function list(upstream: Upstream, family: Family, request: CatalogRequest): Promise<Listing> {
  const shape = upstream.listShape(family);
  try {
    const reply = await upstream.send({
      family: shape,
      method: "GET",
      path: shape.models.path,
      headers: { ...request.headers(upstream), accept: "application/json" },
      version: request.version,
      signal: AbortSignal.any([request.signal, AbortSignal.timeout(upstream.config.timeouts.firstByteMs)]),
    });
    if (reply.status !== 200) return { upstream, reply };
    const body = parseJsonObject(await reply.body.text());
    if (!body) return { upstream, error: new UpstreamUnreachableError(upstream.name, `The upstream ${upstream.label} listed its models in a body that is not JSON.`) };
    if (shape === family) return { upstream, entries: family.models.entries(body) };
    // Listed in another shape: each entry keeps its id, its creation time and its name, and says which upstream it
    // came from. A shape whose name column is an owner (chat's `owned_by`) has no display name: the id is one.
    const named = shape.models.nameTitle !== "OWNER";
    return { upstream, entries: shape.models.entries(body).map((entry) => {
      const row = shape.models.row(entry);
      return family.models.entry(row.id, (named && row.name) || row.id, upstream.name, row.createdSeconds);
    }) };
  } catch (error) {
    if (request.signal.aborted) throw error;
    if ((error as Error).name === "TimeoutError") return { upstream, error: new UpstreamTimeoutError(upstream.name, `The upstream ${upstream.label} did not list its models in time.`, { cause: error }) };
    return { upstream, error: error as Error };
  }
}

/**
 * Every upstream's catalog in `family`'s shape, fetched concurrently (each bounded by its first-byte timeout, so one
 * that hangs costs the slowest answer, not the sum), in file order with the default first; an upstream that lists
 * in another shape (`Upstream.listShape`) is asked in that one and its entries converted (`id` <-> `models/<id>`). Each id is kept
 * once, from the first upstream that listed it.
 */
export async function collectCatalog(upstreams: UpstreamSet, family: Family, request: CatalogRequest): Promise<Catalog> {
  const ordered = [upstreams.default, ...upstreams.all.filter((upstream) => upstream !== upstreams.default)];
  const listings = await Promise.all(ordered.map((upstream) => list(upstream, family, request)));
  const seen = new Set<string>();
  const entries: CatalogEntry[] = [];
  const answered: string[] = [];
  const failed: string[] = [];
  const allFailed = listings.every((listing) => !("entries" in listing));
  for (const [i, listing] of listings.entries()) {
    if (!("entries" in listing)) {
      failed.push(listing.upstream.name);
      // The default's error reply is passed on when nobody answered; every other one is done with.
      if ("reply" in listing && !(allFailed && i === 0)) await listing.reply.body.dump().catch(() => undefined);
      continue;
    }
    answered.push(listing.upstream.name);
    for (const entry of listing.entries) {
      const id = family.models.row(entry).id;
      if (seen.has(id)) continue;
      seen.add(id);
      entries.push({ entry, id, upstream: listing.upstream.name });
    }
  }
  const first = listings[0]!;
  return { entries, answered, failed, failure: allFailed && !("entries" in first) ? first : undefined };
}
