import { prettyJson } from "../dashboard/pretty-json.js";
import type { RequestDetail } from "../dashboard/dashboard-routes.js";
import { GatewayProcessError } from "../errors/index.js";
import { formatMs } from "../request-log/format.js";
import { formatRequestLine } from "../request-log/request-line.js";

const headerLines = (mark: string, headers: Record<string, string>) => Object.entries(headers).map(([name, value]) => `${mark} ${name}: ${value}`);

/** One captured exchange as `gateway logs --show` prints it: curl -v style headers, pretty bodies, timed events. */
export function formatCapture(detail: RequestDetail): string {
  const lines: string[] = [];
  if (detail.record) lines.push(formatRequestLine(detail.record), "");
  const capture = detail.capture;
  if (!capture) {
    lines.push(
      detail.captureMode === "off"
        ? "Capture was off for this request: start the gateway with --capture (or --capture errors) to keep bodies in memory."
        : "No capture is kept for this request (not an error under --capture errors, or dropped to stay within 200 requests / 64 MiB).",
    );
    return lines.join("\n");
  }
  lines.push(`> ${capture.request.method} ${capture.request.path}`, ...headerLines(">", capture.request.headers), "");
  if (capture.request.body) lines.push(prettyJson(capture.request.body), "");
  // Each request made upstream, retries and fallbacks included, the way curl -v marks its own notes.
  for (const [i, a] of capture.attempts.entries()) lines.push(`* attempt ${i + 1}: ${a.upstream} ${a.status ?? a.failure} after ${formatMs(a.ms)}`);
  if (capture.attempts.length > 0) lines.push("");
  if (capture.response) {
    lines.push(`< ${capture.response.status}`, ...headerLines("<", capture.response.headers), "");
    if (capture.response.eventStream) {
      for (const chunk of capture.chunks) lines.push(`[+${chunk.at.toFixed(1)} ms]`, chunk.text.trimEnd());
    } else lines.push(prettyJson(capture.chunks.map((c) => c.text).join("")));
  }
  return lines.join("\n");
}

/** Asks the running gateway for a request's record and capture (they live in its memory only). */
export async function fetchCapture(port: number, localKey: string, id: string): Promise<RequestDetail> {
  let response: Response;
  try {
    response = await fetch(`http://127.0.0.1:${port}/ui/api/requests/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${localKey}` } });
  } catch {
    throw new GatewayProcessError(`No gateway is running on port ${port}; captures live only in a running gateway's memory.`, { hint: "Start one with `gateway start --capture`." });
  }
  if (response.status === 404) {
    throw new GatewayProcessError(`The gateway on port ${port} knows no request ${id}.`, { hint: "Request ids are in `gateway logs --json` and the dashboard; captures go when the gateway stops." });
  }
  if (!response.ok) throw new GatewayProcessError(`The gateway on port ${port} answered ${response.status}.`, { hint: "Check that `gateway env` and the gateway use the same config directory." });
  return (await response.json()) as RequestDetail;
}
