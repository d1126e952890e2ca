import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * A real llama.cpp `llama-server` (issue 49): the directory holding its `start.sh` (README, Development), from
 * `GATEWAY_TEST_LLAMA_SERVER`, else `../shared/servers/llama.cpp` beside the repository when it is there (as the CI
 * clone and `/work/main` have it). Undefined when there is none: the tests that need it are skipped with `LLAMA_SKIP`.
 */
export const LLAMA_SERVER_DIR: string | undefined = (() => {
  const given = process.env.GATEWAY_TEST_LLAMA_SERVER;
  const dir = given || join(fileURLToPath(new URL("../../..", import.meta.url)), "shared", "servers", "llama.cpp");
  return existsSync(join(dir, "start.sh")) ? dir : undefined;
})();

/** Why the real-server tests were skipped, and how to get a server (README, Development). */
export const LLAMA_SKIP =
  "no real llama.cpp server: set GATEWAY_TEST_LLAMA_SERVER to a directory with start.sh, bin/llama-server and models/tiny.gguf (README, Development: building llama-server and a tiny model)";

export interface LlamaServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Everything the server printed: its log says what it refused and why. */
  log(): string;
  close(): Promise<void>;
}

/**
 * Starts `start.sh --port 0 [flags]` on 127.0.0.1 and resolves when it prints the line llama-server prints once its
 * model is loaded ("listening on http://127.0.0.1:<port>"; `/health` answers 200 from then on). `close` stops it by
 * its PID (`start.sh` execs the server, so the PID is the server's) and waits for it to exit.
 */
export function startLlamaServer(flags: readonly string[] = [], timeoutMs = 30_000): Promise<LlamaServer> {
  if (!LLAMA_SERVER_DIR) throw new Error(LLAMA_SKIP);
  const child: ChildProcess = spawn("sh", [join(LLAMA_SERVER_DIR, "start.sh"), "--port", "0", ...flags], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void close();
      reject(new Error(`llama-server did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = output.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (!listening) return;
      clearTimeout(timer);
      child.stdout!.off("data", read);
      child.stderr!.off("data", read);
      child.stdout!.on("data", (more: Buffer) => (output += more.toString()));
      child.stderr!.on("data", (more: Buffer) => (output += more.toString()));
      resolve({ url: listening[1]!, log: () => output, close });
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`llama-server exited (${code}) before listening:\n${output}`));
    });
  });
}
