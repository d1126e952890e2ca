import { mkdtempSync, readFileSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cliEnv, spawnCli } from "./helpers/cli.js";
import { tempConfigDir } from "./helpers/gateway.js";

/**
 * A one-off `gateway chat` with no gateway running (issue 52): the request goes through the gateway's request path
 * in the command's own process, and the process ends as soon as the reply is printed.
 */

const EXIT_GAP = fileURLToPath(new URL("./helpers/exit-gap.mjs", import.meta.url));

describe("a one-off gateway chat", () => {
  // undici's llhttp is WebAssembly, which V8 compiled again with TurboFan on a background thread that Node waits for
  // at exit: the process stayed 0.2-0.6 s after the reply, doing nothing. The bound is far above what is left (Node's
  // own teardown, under 20 ms) and far below that wait.
  it("exits right after printing its reply: nothing waits for a background compile", async () => {
    const gap = join(mkdtempSync(join(tmpdir(), "gateway-exit-gap-")), "gap.txt");
    const child = spawnCli(["chat", "-m", "echo-1", "hi"], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_TEST_EXIT_GAP: gap }), ["--import", EXIT_GAP]);
    child.stdin!.end();
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
    expect(child.output().stdout).toBe("echo: hi\n");
    expect(Number(readFileSync(gap, "utf8"))).toBeLessThan(100);
  });
});
