import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const BIN = fileURLToPath(new URL("../../bin/gateway.js", import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Keeps every CLI output for the suite-wide key-leak check. */
export function recordOutput(args: readonly string[], stdout: string, stderr: string): void {
  const dir = process.env.GATEWAY_TEST_OUTPUT_DIR;
  if (dir) appendFileSync(join(dir, `${process.pid}.log`), `$ gateway ${args.join(" ")}\n${stdout}\n${stderr}\n`);
}

let stateHome: string | undefined;

/**
 * A clean environment for the CLI: only what it needs, nothing from the developer's shell config. The request log
 * goes to a temporary directory, never to the developer's own state directory.
 */
export function cliEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  stateHome ??= mkdtempSync(join(tmpdir(), "gateway-state-"));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: "1", XDG_STATE_HOME: stateHome, ...extra };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return env;
}

/** Starts `gateway <args>` as a real child process, its Node started with `nodeArgs`, in `cwd` (default: this process's). */
export function spawnCli(args: readonly string[], env: NodeJS.ProcessEnv, nodeArgs: readonly string[] = [], cwd?: string): ChildProcess & { output: () => { stdout: string; stderr: string } } {
  const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], { env, stdio: ["pipe", "pipe", "pipe"], cwd });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  child.on("close", () => recordOutput(args, stdout, stderr));
  return Object.assign(child, { output: () => ({ stdout, stderr }) });
}

/** Runs `gateway <args>` to completion, with optional standard input, in `cwd` (default: this process's). */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv, input?: string, timeoutMs = 20_000, cwd?: string): Promise<CliResult> {
  const child = spawnCli(args, env, [], cwd);
  if (input !== undefined) child.stdin!.end(input);
  else child.stdin!.end();
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, ...child.output() });
    });
  });
}

/** Waits until the child's stdout (or `stream`) matches, from character `from` on, returning the match. */
export function waitForOutput(child: ReturnType<typeof spawnCli>, pattern: RegExp, stream: "stdout" | "stderr" = "stdout", timeoutMs = 10_000, from = 0): Promise<RegExpMatchArray> {
  const source = child[stream]!;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; got ${JSON.stringify(child.output())}`)), timeoutMs);
    const check = () => {
      const match = child.output()[stream].slice(from).match(pattern);
      if (match) {
        clearTimeout(timer);
        source.off("data", check);
        resolve(match);
      }
    };
    source.on("data", check);
    child.on("close", () => {
      clearTimeout(timer);
      reject(new Error(`exited before ${pattern}: ${JSON.stringify(child.output())}`));
    });
    check();
  });
}

/** Runs any command to completion without blocking this process (a fake upstream here must keep answering), its output kept for the key-leak check. */
export function runProcess(command: string, args: readonly string[], options: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number }): Promise<CliResult> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      recordOutput([`(${command}) ${args.join(" ")}`], stdout, stderr);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
