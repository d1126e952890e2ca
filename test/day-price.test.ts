import { calcPrice, findProvider, type Provider } from "@pydantic/genai-prices";
import { describe, expect, it } from "vitest";
import { dayPriceOf } from "../src/pricing/day-price.js";
import { loadPriceTable, type PricedTokens, type TablePrice } from "../src/pricing/index.js";

// Issue 53: the table's price of a model is resolved once per UTC day and a record only multiplies. Every figure must
// be the very number `calcPrice` gives (budgets compare sums of them): each is held against it, computed as the
// table was read before (`calcPrice` for every record, against the model's own entry).

const PROVIDERS = ["anthropic", "openai", "google", "deepseek", "mistral", "x-ai", "aws", "azure", "groq", "openrouter", "together", "fireworks", "cohere", "novita", "deepinfra"];

/** The cost `calcPrice` gives `tokens` of `model` at `time`, the model looked up as the table does. */
function reference(model: string, tokens: PricedTokens, time: Date): number | undefined {
  const probe = { input_tokens: 0, output_tokens: 0 };
  const hit = calcPrice(probe, model, { timestamp: time }) ?? (/^[\w.-]+\/[^/]/.test(model) ? calcPrice(probe, model, { providerId: "openrouter", timestamp: time }) : null);
  if (!hit) return undefined;
  const provider: Provider = { ...hit.provider, models: [hit.model] };
  const usage = { input_tokens: tokens.input, output_tokens: tokens.output, cache_read_tokens: tokens.cacheRead, cache_write_tokens: tokens.cacheWrite };
  return calcPrice(usage, model, { provider, timestamp: time })?.total_price;
}

/** `table`'s costs of `model` at each of `times` in turn, and calcPrice's own for the same (`reference`). */
function inTurn(table: TablePrice, model: string, tokens: PricedTokens, times: readonly Date[]): { costs: (number | undefined)[]; expected: (number | undefined)[] } {
  return { costs: times.map((time) => table(model, tokens, time)), expected: times.map((time) => reference(model, tokens, time)) };
}

/** Token counts of every size, cache parts within the input, from a fixed seed. */
function* tokenSets(count: number): Generator<PricedTokens> {
  let seed = 53;
  const next = (limit: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % limit);
  for (let i = 0; i < count; i++) {
    const input = next([10, 1_000, 100_000, 2_000_000][i % 4]!);
    const cacheRead = i % 3 === 0 ? 0 : next(input + 1);
    const cacheWrite = i % 5 === 0 ? 0 : next(input - cacheRead + 1);
    yield { input, output: next(50_000), cacheRead, cacheWrite };
  }
}

describe("the bundled table's price of a day, kept", () => {
  it("prices every model of the table to the last bit as calcPrice does, the day's price resolved once", async () => {
    const table = await loadPriceTable();
    const time = new Date("2026-12-07T10:00:00.000Z");
    let kept = 0;
    let models = 0;
    for (const id of PROVIDERS) {
      for (const model of findProvider({ providerId: id })?.models ?? []) {
        const hit = calcPrice({ input_tokens: 1, output_tokens: 1 }, model.id, { timestamp: time });
        if (!hit) continue;
        models++;
        if (dayPriceOf(hit.model, hit.model_price, time)?.cost({ input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }) !== undefined) kept++;
        for (const tokens of tokenSets(12)) expect([model.id, table(model.id, tokens, time)]).toEqual([model.id, reference(model.id, tokens, time)]);
      }
    }
    // Most of the table's prices are plain ones, priced by multiplying: the comparison above mostly checks those.
    expect(models).toBeGreaterThan(250);
    expect(kept / models).toBeGreaterThan(0.85);
  });

  it("prices every provider's models as calcPrice does around each of their dated prices, the days met in any order, in any time zone", async () => {
    // Every provider the table finds by its API's address, and those reached through others (OpenAI's, Moonshot's).
    const providers = ["anthropic", "arcee", "avian", "aws", "azure", "baseten", "cohere", "deepseek", "doubleword", "fireworks", "google", "groq", "minimax", "mistral", "modal", "novita", "openai", "openrouter", "ovhcloud", "perplexity", "together", "x-ai", "zai", "zhipuai", "moonshotai"];
    let seed = 7;
    const next = (limit: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * limit);
    };
    const zone = process.env.TZ;
    const differ: unknown[] = [];
    let models = 0;
    try {
      for (const [i, id] of providers.entries()) {
        // The gateway's day is UTC's: the zone the process runs in must change nothing (UTC+14 and UTC-10 by turns).
        process.env.TZ = ["Pacific/Kiritimati", "America/Adak", "UTC"][i % 3];
        const table = await loadPriceTable();
        for (const model of findProvider({ providerId: id })?.models ?? []) {
          models++;
          const dates = Array.isArray(model.prices) ? model.prices.flatMap((price) => (price.constraint?.type === "start_date" ? [Date.parse(`${price.constraint.start_date}T00:00:00Z`)] : [])) : [];
          const times = [Date.parse("2026-12-07T10:00:00Z"), ...dates.flatMap((start) => [start - 86_400_000, start - 1, start, start + 1, start + 13 * 3_600_000])];
          for (const tokens of tokenSets(10)) {
            const time = new Date(times[next(times.length)]!);
            let cost: unknown;
            try {
              cost = table(model.id, tokens, time);
            } catch (error) {
              cost = (error as Error).message;
            }
            let expected: unknown;
            try {
              expected = reference(model.id, tokens, time);
            } catch (error) {
              expected = (error as Error).message;
            }
            if (!Object.is(cost, expected)) differ.push({ id, model: model.id, time, tokens, cost, expected });
          }
        }
      }
    } finally {
      process.env.TZ = zone;
    }
    expect(models).toBeGreaterThan(1_000);
    expect(differ).toEqual([]);
  });

  it("takes a new price from the day it starts: the day before and the first day each priced as calcPrice does", async () => {
    const table = await loadPriceTable();
    const tokens = { input: 1_000_000, output: 100_000, cacheRead: 200_000, cacheWrite: 50_000 };
    // Mistral's medium model has a new price from 2026-06-16 (UTC midnight).
    const before = new Date("2026-06-15T23:59:59.999Z");
    const from = new Date("2026-06-16T00:00:00.000Z");
    const { costs, expected } = inTurn(table, "mistral-medium-latest", tokens, [before, from, before]);
    expect(costs).toEqual(expected);
    expect(costs[0]).not.toBe(costs[1]);
  });

  it("prices a time-of-day price (DeepSeek's off-peak) from the table each time, and a tiered one (over 200,000 input tokens) at its tier", async () => {
    const table = await loadPriceTable();
    const tokens = { input: 1_000_000, output: 100_000, cacheRead: 200_000, cacheWrite: 0 };
    const peak = new Date("2026-12-07T10:00:00.000Z");
    const offPeak = new Date("2026-12-07T20:00:00.000Z");
    const deepseek = inTurn(table, "deepseek-chat", tokens, [peak, offPeak, peak]);
    expect(deepseek.costs).toEqual(deepseek.expected);
    expect(deepseek.costs[0]).not.toBe(deepseek.costs[1]);
    const small = { input: 100_000, output: 1_000, cacheRead: 0, cacheWrite: 0 };
    const tiered = [table("gemini-2.5-pro", small, peak), table("gemini-2.5-pro", tokens, peak)];
    expect(tiered).toEqual([reference("gemini-2.5-pro", small, peak), reference("gemini-2.5-pro", tokens, peak)]);
    expect(tiered[1]! / tiered[0]!).not.toBeCloseTo((tokens.input - tokens.cacheRead) / small.input, 1);
  });

  it("leaves to the table the usage it refuses (cache parts over the whole), which it reports as it always did", async () => {
    const table = await loadPriceTable();
    const time = new Date("2026-12-07T10:00:00.000Z");
    table("gpt-4o-mini", { input: 10, output: 1, cacheRead: 0, cacheWrite: 0 }, time);
    const odd = { input: 10, output: 1, cacheRead: 20, cacheWrite: 0 };
    expect(() => table("gpt-4o-mini", odd, time)).toThrow(/Invalid usage data/);
  });

  it("leaves to the table a negative count (an upstream's odd report), after a record of the same day as before it", async () => {
    const time = new Date("2026-12-07T10:00:00.000Z");
    const valid = { input: 1_000, output: 10, cacheRead: 0, cacheWrite: 0 };
    for (const odd of [
      { input: 1_000, output: -1_000_000, cacheRead: 0, cacheWrite: 0 },
      { input: 1_000, output: 10, cacheRead: -500_000, cacheWrite: 0 },
      { input: 1_000, output: 10, cacheRead: 0, cacheWrite: -500_000 },
    ]) {
      const table = await loadPriceTable();
      expect(() => table("claude-sonnet-4-5", odd, time)).toThrow(/Invalid usage value/);
      // The same record priced after a valid one of that day is refused as the table refuses it, not a negative cost.
      table("claude-sonnet-4-5", valid, time);
      expect(() => table("claude-sonnet-4-5", odd, time)).toThrow(/Invalid usage value/);
    }
  });
});
