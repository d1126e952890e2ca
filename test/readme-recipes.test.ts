import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BIN, recordOutput } from "./helpers/cli.js";

/** Command blocks of the README that set up the machine, run as written (the install line aside: CI installs). */
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const hasDbusLaunch = spawnSync("sh", ["-c", "command -v dbus-launch && command -v gnome-keyring-daemon"]).status === 0;
if (!hasDbusLaunch && process.env.CI) throw new Error("dbus-launch (dbus-x11) and gnome-keyring are needed for the README recipe test");

describe.skipIf(!hasDbusLaunch)("the README's headless Linux recipe", () => {
  it("gives a Secret Service that gateway login stores the key in", () => {
    const block = /\*\*Headless Linux\*\*[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    const lines = block.split("\n").map((line) => line.trim()).filter((line) => line && !line.startsWith("sudo apt-get"));
    expect(lines).toHaveLength(2);
    const script = [
      "set -eu",
      'export HOME="$(mktemp -d)" XDG_DATA_HOME="$(mktemp -d)" GATEWAY_CONFIG_DIR="$(mktemp -d)" GATEWAY_STATE_DIR="$(mktemp -d)"',
      "unset DBUS_SESSION_BUS_ADDRESS",
      "KEYRING_PASSWORD=recipe-test",
      ...lines,
      'keyring=$(pgrep -n gnome-keyring-d)',
      `printf %s sk-readme-recipe-0123 | "${process.execPath}" "${BIN}" login --upstream https://gateway.example.com --stdin --no-verify 2>&1`,
      `GATEWAY_UPSTREAM=https://gateway.example.com "${process.execPath}" "${BIN}" status 2>&1 | grep '^Key:' || true`,
      'kill "$keyring" "$DBUS_SESSION_BUS_PID"',
    ].join("\n");
    const out = execFileSync("sh", ["-c", script], { env: { PATH: process.env.PATH, NO_COLOR: "1" }, timeout: 30_000 }).toString();
    recordOutput(["(README headless recipe)"], out, "");
    expect(out).toContain('Key stored in the OS keychain (service "gateway", account https://gateway.example.com).');
    expect(out).toContain("Key:       stored in the OS keychain for https://gateway.example.com");
  });
});
