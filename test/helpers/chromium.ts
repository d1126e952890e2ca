import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { cliEnv, spawnCli, waitForOutput } from "./cli.js";
import { LOCAL_KEY, tempConfigDir } from "./gateway.js";

/** The system's Chromium, which the dashboard tests drive headless. */
export const CHROMIUM = "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);

/** Screenshots for people to look at: test-artifacts/ (kept by CI runs), not committed. */
export const ARTIFACTS = new URL("../../test-artifacts/", import.meta.url).pathname;

/** A dashboard test that must run in CI: without Chromium there, it fails instead of being skipped. */
export function requireChromiumInCi(what: string): void {
  if (!hasChromium && process.env.CI) throw new Error(`${what} must run in CI, but ${CHROMIUM} is missing`);
}

/** Headless Chromium with nothing of its own on the network, and the artifacts folder made for its screenshots. */
export function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** A `gateway start` of `config`, its state in a folder of its own, for a page to look at. */
export interface DashboardGateway {
  url: string;
  /** Stops the gateway and removes its state folder. */
  close(): void;
}

export async function startDashboardGateway(config: Record<string, unknown>, name: string): Promise<DashboardGateway> {
  const stateDir = mkdtempSync(join(tmpdir(), `gateway-${name}-`));
  const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(config), GATEWAY_STATE_DIR: stateDir, GATEWAY_LOCAL_KEY: LOCAL_KEY });
  const gateway = spawnCli(["start", "--port", "0", "--quiet"], env);
  const url = (await waitForOutput(gateway, /listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  return {
    url,
    close() {
      gateway.kill("SIGTERM");
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
