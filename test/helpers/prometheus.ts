import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.js";

/** The instant vector a Prometheus query answers: each series' labels and value. */
export interface PromSample {
  metric: Record<string, string>;
  value: number;
}

/**
 * A real Prometheus server (Debian's `prometheus` package, `.ci/run` installs it) on a loopback port, scraping
 * `target`'s `/metrics` every 200 ms with `key` as its bearer token. The key is written to a 0600 file Prometheus
 * reads (`authorization.credentials_file`): it is in no process argument and in no config text. Resolves once
 * Prometheus says it is ready (its own log line, not a wait).
 */
export async function startPrometheus(target: string, key: string) {
  const dir = mkdtempSync(join(tmpdir(), "gateway-prometheus-"));
  const keyFile = join(dir, "gateway-key");
  writeFileSync(keyFile, key, { mode: 0o600 });
  const config = [
    "global:",
    "  scrape_interval: 200ms",
    "  scrape_timeout: 150ms",
    "scrape_configs:",
    "  - job_name: gateway",
    "    static_configs:",
    `      - targets: ["${new URL(target).host}"]`,
    "    authorization:",
    `      credentials_file: ${keyFile}`,
  ].join("\n");
  writeFileSync(join(dir, "prometheus.yml"), config);
  const port = await freePort();
  const child = spawn("prometheus", [`--config.file=${join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`prometheus exited (${code}) before it was ready:\n${log}`)));
    child.stderr!.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes("Server is ready to receive web requests.")) resolve();
    });
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    /** The answer to an instant query through the HTTP API (`/api/v1/query`). */
    async query(expression: string): Promise<PromSample[]> {
      const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expression)}`);
      const body = (await response.json()) as { status: string; data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
      if (body.status !== "success") throw new Error(`query ${expression}: ${JSON.stringify(body)}`);
      return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    /** What Prometheus reports of its scrape of the gateway (`/api/v1/targets`). */
    async target(): Promise<{ health: string; lastError: string }> {
      const response = await fetch(`${url}/api/v1/targets`);
      const body = (await response.json()) as { data: { activeTargets: { health: string; lastError: string }[] } };
      return body.data.activeTargets[0]!;
    },
    async close(): Promise<void> {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
