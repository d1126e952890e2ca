/**
 * The files `gateway service install` writes: a systemd user unit and a launchd agent, as text. Pure: the caller
 * says where node, the CLI and the gateway's directories are.
 */

/** What the service runs, and with what. */
export interface ServiceSpec {
  /** Absolute path of the node binary (a login session's PATH may lack the one this install runs on). */
  node: string;
  /** Absolute path of the installed `gateway` script. */
  bin: string;
  /** The config and state directories as this shell resolves them, so the service uses the same key, records and log. */
  configDir: string;
  stateDir: string;
}

/**
 * The first line of every file the gateway writes: `uninstall` removes a file only when it starts with it, and
 * `install` overwrites nothing else.
 */
export const MARKER = "Written by `gateway service install`; `gateway service uninstall` removes it.";

/** The unit's name: `systemctl --user status gateway`. */
export const SYSTEMD_UNIT = "gateway.service";

/**
 * The agent's label, reverse DNS under the npm package's name (no domain is the project's own); it names the plist
 * in ~/Library/LaunchAgents too.
 */
export const LAUNCHD_LABEL = "com.npmjs.local-llm-gateway.gateway";

/**
 * Foreground, without a line per request: each request is in requests.jsonl, where `gateway logs` reads it, and the
 * service's own output (the journal, the agent's log file) keeps the start-up lines, warnings and errors.
 */
export const SERVICE_ARGS = ["start", "--quiet"] as const;

/** The file of variables a headless box puts `GATEWAY_API_KEY` in (0600; optional): never the unit itself. */
export const serviceEnvFile = (configDir: string): string => `${configDir}/service.env`;

/** Where a launchd agent's output goes: launchd has no journal. */
export const launchdLogFile = (stateDir: string): string => `${stateDir}/gateway-service.log`;

/** A value no file format here can carry. */
function refuseControl(value: string): string {
  if (/[\0-\x1f\x7f]/.test(value)) throw new Error(`A service file cannot hold this path (it has a control character): ${JSON.stringify(value)}`);
  return value;
}

/**
 * One word of a systemd line, double-quoted: backslash and quote escaped, `%` (specifiers) doubled, and in
 * command lines `$` (variable expansion) doubled too (systemd.service(5) "Command lines", systemd.unit(5) "Specifiers").
 */
function systemdWord(value: string, inCommand: boolean): string {
  const escaped = refuseControl(value).replace(/[\\"]/g, "\\$&").replace(/%/g, "%%");
  return `"${inCommand ? escaped.replace(/\$/g, "$$$$") : escaped}"`;
}

/**
 * A systemd user unit: started with the user's manager (`WantedBy=default.target`), restarted 5 s after a failure
 * but not after `gateway stop` (a clean exit), given the drain's 10 s and a margin before SIGKILL. Output goes to
 * the journal (`journalctl --user -u gateway`). The user manager passes its environment on, D-Bus session address
 * included, so the keychain of the login session is reachable; a headless box can give `GATEWAY_API_KEY` in the
 * optional environment file instead.
 */
export function systemdUnit(spec: ServiceSpec): string {
  const command = [spec.node, spec.bin, ...SERVICE_ARGS].map((word) => systemdWord(word, true)).join(" ");
  const env = [`GATEWAY_CONFIG_DIR=${spec.configDir}`, `GATEWAY_STATE_DIR=${spec.stateDir}`].map((pair) => systemdWord(pair, false)).join(" ");
  return [
    `# ${MARKER}`,
    "[Unit]",
    "Description=gateway, the local LLM API gateway",
    "Documentation=https://www.npmjs.com/package/local-llm-gateway",
    "",
    "[Service]",
    "Type=exec",
    `ExecStart=${command}`,
    `Environment=${env}`,
    `EnvironmentFile=-${refuseControl(serviceEnvFile(spec.configDir)).replace(/%/g, "%%")}`,
    "Restart=on-failure",
    "RestartSec=5",
    "TimeoutStopSec=20",
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}

const xml = (value: string): string => refuseControl(value).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * A launchd agent (launchd.plist(5)): loaded at login and started at once (`RunAtLoad`), started again only when it
 * exits with a failure (`KeepAlive` `SuccessfulExit` false: `gateway stop` stays stopped), output to a log file.
 * An agent runs in the user's login session, where the login keychain is.
 */
export function launchdPlist(spec: ServiceSpec): string {
  const strings = (values: readonly string[]) => values.map((value) => `    <string>${xml(value)}</string>`);
  const log = xml(launchdLogFile(spec.stateDir));
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    `<!-- ${MARKER.replace(/`/g, "")} -->`,
    '<plist version="1.0">',
    "<dict>",
    "  <key>Label</key>",
    `  <string>${LAUNCHD_LABEL}</string>`,
    "  <key>ProgramArguments</key>",
    "  <array>",
    ...strings([spec.node, spec.bin, ...SERVICE_ARGS]),
    "  </array>",
    "  <key>EnvironmentVariables</key>",
    "  <dict>",
    "    <key>GATEWAY_CONFIG_DIR</key>",
    `    <string>${xml(spec.configDir)}</string>`,
    "    <key>GATEWAY_STATE_DIR</key>",
    `    <string>${xml(spec.stateDir)}</string>`,
    "  </dict>",
    "  <key>RunAtLoad</key>",
    "  <true/>",
    "  <key>KeepAlive</key>",
    "  <dict>",
    "    <key>SuccessfulExit</key>",
    "    <false/>",
    "  </dict>",
    "  <key>StandardOutPath</key>",
    `  <string>${log}</string>`,
    "  <key>StandardErrorPath</key>",
    `  <string>${log}</string>`,
    "</dict>",
    "</plist>",
    "",
  ].join("\n");
}

/** Whether `text` is a file this command wrote (its marker in the first three lines). */
export const isOurs = (text: string): boolean =>
  text
    .split("\n", 3)
    .some((line) => line.includes(MARKER) || line.includes(MARKER.replace(/`/g, "")));
