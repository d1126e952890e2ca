export type { GatewayConfig, ConfigFields, Timeouts, EnvSecrets } from "./types.js";
export { ECHO_UPSTREAM, CAPTURE_MODES, type CaptureMode } from "./types.js";
export { DEFAULTS } from "./defaults.js";
export { resolveConfigDir } from "./config-dir.js";
export { resolveStateDir } from "./state-dir.js";
export { isLoopbackHost } from "./loopback.js";
export { loadConfig, readEnvSecrets, readConfigFile, CONFIG_FILE_NAME, type ConfigFlags } from "./load-config.js";
