import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEST_SECRETS } from "./secrets.js";

/**
 * Every CLI child process of the suite appends what it printed to a file in this directory; after the last test
 * the files are searched for the test keys. A key in any output fails the run.
 */
export function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "gateway-cli-output-"));
  process.env.GATEWAY_TEST_OUTPUT_DIR = dir;
  return () => {
    const files = readdirSync(dir);
    const leaks: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(dir, file), "utf8");
      for (const secret of TEST_SECRETS) if (text.includes(secret)) leaks.push(`${file} contains a test key`);
    }
    rmSync(dir, { recursive: true, force: true });
    if (leaks.length > 0) throw new Error(`Upstream key leaked into CLI output:\n${leaks.join("\n")}`);
    console.log(`no-leak check: every CLI output of the suite (${files.length} files) searched, no upstream key found`);
  };
}
