import type { Family } from "../formats/index.js";
import { parseJsonObject } from "../parse-json.js";

/**
 * The context window a model list's entry gives under `field`, a key or a dotted path (llama.cpp's `meta.n_ctx`);
 * undefined when it gives none.
 */
export function contextWindowOf(entry: Record<string, unknown>, field: string): number | undefined {
  let value: unknown = entry;
  for (const key of field.split(".")) value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** How long a list that failed, or did not name a model asked about, is trusted before it is asked again. */
const RELIST_MS = 60_000;

/**
 * Each model's context window as an upstream's own model list says it (SPEC 11, Kinds: vLLM's `max_model_len`,
 * OpenRouter's `context_length`), learnt beside the requests and never in front of one: the first request that asks
 * about a model not known yet starts one list fetch and goes on without waiting for it; the requests after it know
 * the window. A list that failed, or did not name the model, is asked again a minute later at the earliest.
 */
/** Asks the upstream for the model list of `family` (a GET of its list path), as `upstream.ts` sends any call. */
export type ListModels = (signal: AbortSignal) => Promise<{ status: number; body: { text(): Promise<string> } }>;

export function contextWindows(list: ListModels, family: Family, field: string, firstByteMs: number) {
  const windows = new Map<string, number>();
  let fetching = false;
  let listedAt = -Infinity;

  function learn(entries: readonly Record<string, unknown>[]): void {
    for (const entry of entries) {
      const window = contextWindowOf(entry, field);
      if (window !== undefined) windows.set(family.models.row(entry).id, window);
    }
  }

  async function fetchList(): Promise<void> {
    try {
      const reply = await list(AbortSignal.timeout(firstByteMs));
      const body = parseJsonObject(await reply.body.text());
      if (reply.status !== 200 || !body) return;
      learn(family.models.entries(body));
    } catch {
      // No window learnt: requests go uncapped, as before, and the list is asked again later.
    } finally {
      fetching = false;
      listedAt = performance.now();
    }
  }

  return {
    /** Learns the windows of a list read for another reason (a model-list request), entries in the kind's list shape. */
    learn,
    /** The window of `model` when its upstream's list named one; undefined starts a fetch (see above). */
    of(model: string): number | undefined {
      const window = windows.get(model);
      if (window !== undefined || fetching || performance.now() - listedAt < RELIST_MS) return window;
      fetching = true;
      void fetchList();
      return undefined;
    },
  };
}
