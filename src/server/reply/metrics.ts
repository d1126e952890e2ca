import type { GatewayMetrics } from "../../telemetry/gateway-metrics.js";
import type { Exchange } from "../exchange.js";

/** `GET /metrics` (SPEC 12): every metric in the Prometheus text format, never cached by anything between. */
export async function answerMetrics(x: Exchange, metrics: GatewayMetrics): Promise<void> {
  const { contentType, text } = await metrics.scrape();
  x.delivery.status = 200;
  x.sink.head(200, Object.assign({ "content-type": contentType, "content-length": Buffer.byteLength(text), "cache-control": "no-store" }, x.cors));
  x.sink.end(text);
}
