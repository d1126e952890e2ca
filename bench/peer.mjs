// claude-code-router (`@musistudio/claude-code-router`, which translates Anthropic messages to chat) as a peer row:
// installed by bench/setup.sh outside the repository, never a dependency, and pointed at the bench's fake upstream
// on loopback with its own HOME, so it reads only the config written here.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, connect } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ccrConfig } from "./configs.mjs";
import { startProcess } from "./processes.mjs";

/** Where bench/setup.sh installs the peers: a cache directory of the user's, not the repository. */
export const PEERS_DIR = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "gateway-bench", "peers");
const CCR_CLI = join(PEERS_DIR, "node_modules", "@musistudio", "claude-code-router", "dist", "cli.js");

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const accepts = (port) =>
  new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => (socket.destroy(), resolve(true)));
    socket.on("error", () => resolve(false));
  });

/** Starts claude-code-router on a free loopback port; undefined when it is not installed. */
export async function startPeer(upstreamUrl, upstreamKey, localKey, scratch) {
  if (!existsSync(CCR_CLI)) return undefined;
  const home = join(scratch, "ccr-home");
  mkdirSync(join(home, ".claude-code-router"), { recursive: true });
  const port = await freePort();
  writeFileSync(join(home, ".claude-code-router", "config.json"), JSON.stringify(ccrConfig(upstreamUrl, upstreamKey, localKey, port)));
  const started = await startProcess([CCR_CLI, "start"], { HOME: home }, /Loaded JSON config()/).then((p) => ({ pid: p.pid }));
  for (let i = 0; i < 200 && !(await accepts(port)); i++) await sleep(50);
  return { ...started, port, url: `http://127.0.0.1:${port}` };
}
