import { keyPart } from "./label-caps.js";
import { METRICS, promLabel } from "./metric-names.js";
import type { Attributes, MetricsSink, Observation } from "./observations.js";

/** One label set's running figures: a counter reads `sum`; a histogram `count`, `sum` and `buckets` too. */
export interface Series {
  /** Prometheus label names (`promLabel`) in the order the observation gave them, made once per label set. */
  readonly labels: Readonly<Record<string, string>>;
  count: number;
  sum: number;
  /** Observations per bound, not cumulative: slot `i` counts the values over bound `i - 1` and at most bound `i`; the last slot those over every bound. */
  readonly buckets: number[];
}

/**
 * The series of one metric, folded as observations come: a map lookup and a few additions per observation, where
 * prom-client's `observe` validates and hashes the labels each time (25-35 µs a request under load, issue 53). Read
 * only when a scrape renders it (`prometheus-export.ts`).
 */
export class SeriesSums {
  readonly #series = new Map<string, Series>();
  /** The series of a label set by its identity: the observer hands out the same set for the same labels (`RequestObserver`). */
  readonly #seen = new WeakMap<Attributes, Series>();
  readonly bounds: readonly number[];

  constructor(bounds: readonly number[] = []) {
    this.bounds = bounds;
  }

  add(attributes: Attributes, value: number): void {
    let series = this.#seen.get(attributes);
    if (series === undefined) this.#seen.set(attributes, (series = this.#seriesOf(attributes)));
    series.count += 1;
    series.sum += value;
    if (this.bounds.length > 0) series.buckets[bucketOf(this.bounds, value)]! += 1;
  }

  /** The series of `attributes`' values, made the first time they are seen. */
  #seriesOf(attributes: Attributes): Series {
    let key = "";
    for (const name in attributes) key += keyPart(attributes[name]);
    let series = this.#series.get(key);
    if (series === undefined) {
      const labels: Record<string, string> = {};
      for (const name in attributes) labels[promLabel(name)] = attributes[name]!;
      this.#series.set(key, (series = { labels, count: 0, sum: 0, buckets: this.bounds.length === 0 ? [] : new Array<number>(this.bounds.length + 1).fill(0) }));
    }
    return series;
  }

  /** Every label set seen, in the order each was first seen. */
  series(): IterableIterator<Series> {
    return this.#series.values();
  }
}

/** The first bound `value` is at most (prom-client's `le`: a value on a bound counts in that bound's bucket), or past the last. */
function bucketOf(bounds: readonly number[], value: number): number {
  let i = 0;
  while (i < bounds.length && value > bounds[i]!) i++;
  return i;
}

/**
 * The running sums of every request metric of SPEC 12 (the gauges are read when collected instead): a sink the
 * gateway feeds from its start, so that a first scrape needs only to load prom-client and render them.
 */
export class RequestSums implements MetricsSink {
  readonly tokens = new SeriesSums(METRICS.tokenUsage.buckets);
  readonly duration = new SeriesSums(METRICS.duration.buckets);
  readonly ttft = new SeriesSums(METRICS.timeToFirstToken.buckets);
  readonly requests = new SeriesSums();
  readonly cost = new SeriesSums();

  add(observation: Observation, costUsd: number | undefined): void {
    this.requests.add(observation.request, 1);
    if (costUsd !== undefined) this.cost.add(observation.cost, costUsd);
    const { call } = observation;
    if (!call) return;
    this.duration.add(call.attributes, call.durationSeconds);
    if (call.timeToFirstToken) this.ttft.add(call.timeToFirstToken.attributes, call.timeToFirstToken.seconds);
    for (const point of call.tokens) this.tokens.add(point.attributes, point.count);
  }
}
