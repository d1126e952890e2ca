import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { detach, useConfigurations } from "./helpers/detached.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream } from "./helpers/fake-upstream.js";
import { freePort } from "./helpers/free-port.js";

/**
 * Issue 37, item 21: the running-gateway record says which config directory the gateway serves, and `start
 * --detach`, `env`, `doctor`, `logs --show` (every command that picks "the" running gateway) pick among this
 * configuration's gateways only: another config directory's gateway, in the same state directory, is not "yours".
 */

const configurations = useConfigurations("this-config-");
const opened = closeAfterEach();

/**
 * A configuration: its own config directory, the state directory given (shared, as XDG_STATE_HOME makes it), and a
 * free configured port unless its config.json names one.
 */
const configuration = (stateDir: string, extra: Record<string, string | undefined> = {}, file?: Record<string, unknown>) =>
  configurations.configuration({ GATEWAY_STATE_DIR: stateDir, ...(file?.port === undefined ? {} : { GATEWAY_PORT: undefined }), ...extra }, file);
const envPort = async (env: NodeJS.ProcessEnv) => new URL(JSON.parse((await runCli(["env", "--json"], env)).stdout).OPENAI_BASE_URL).port;

describe("the gateway of this configuration (item 21)", () => {
  it("start --detach with a configured port starts this configuration's gateway while another's runs; env and doctor follow each its own", async () => {
    const stateDir = configurations.stateDir();
    // One person, two configurations (a work one and a personal one), one local key for both, one state directory.
    const shared = { GATEWAY_LOCAL_KEY: "gw-one-person-two-configs-0123456789abcdef" };
    const work = await configuration(stateDir, shared);
    const [personalPort, envPortValue] = [await freePort(), await freePort()];
    const personal = await configuration(stateDir, shared, { port: personalPort });
    const other = await detach(work, "--port", "0");

    const mine = await detach(personal);
    expect(mine.port).toBe(personalPort);
    expect(await envPort(personal)).toBe(String(personalPort));
    expect(await envPort(work)).toBe(String(other.port));
    const doctor = await runCli(["doctor"], personal);
    expect(doctor.stderr).toContain(`✔ Port ${personalPort}: your gateway`);
    const status = await runCli(["status"], personal);
    expect(status.stderr).toContain(`is running on http://127.0.0.1:${personalPort} (pid ${mine.pid}`);
    expect(status.stderr).toMatch(new RegExp(`  Also running: http://127\\.0\\.0\\.1:${other.port} \\(pid ${other.pid}, up .+\\), for the config directory ${work.GATEWAY_CONFIG_DIR} \\(-p ${other.port}\\)`));

    // GATEWAY_PORT, likewise; each record names the config directory it serves
    const third = await configuration(stateDir, { ...shared, GATEWAY_PORT: String(envPortValue) });
    expect((await detach(third)).port).toBe(envPortValue);
    const records = readdirSync(stateDir).filter((name) => /^gateway-\d+\.json$/.test(name)).map((name) => JSON.parse(readFileSync(join(stateDir, name), "utf8")));
    expect(records.map((r) => [r.port, r.configDir]).sort()).toEqual(
      [[other.port, work.GATEWAY_CONFIG_DIR], [personalPort, personal.GATEWAY_CONFIG_DIR], [envPortValue, third.GATEWAY_CONFIG_DIR]].sort(),
    );
  });

  it("logs --show asks this configuration's gateway, not the newest of another one", async () => {
    const stateDir = configurations.stateDir();
    const work = await configuration(stateDir);
    const personal = await configuration(stateDir, {}, { port: await freePort() });
    await detach(personal);
    await detach(work, "--port", "0");
    const show = await runCli(["logs", "--show", "req_nothing"], personal);
    expect(show.stderr).toMatch(/The gateway on port \d+ knows no request req_nothing\./);
    expect(show.stderr).toContain(`port ${JSON.parse(readFileSync(join(personal.GATEWAY_CONFIG_DIR!, "config.json"), "utf8")).port}`);
  });

  it("a record without its config directory (a gateway older than the field) counts as this configuration's only when it takes this configuration's local key", async () => {
    const stateDir = configurations.stateDir();
    const work = await configuration(stateDir);
    const personalPort = await freePort();
    const personal = await configuration(stateDir, {}, { port: personalPort });
    const old = await detach(work, "--port", "0");
    const path = join(stateDir, `gateway-${old.port}.json`);
    const { configDir: _, ...legacy } = JSON.parse(readFileSync(path, "utf8"));
    writeFileSync(path, JSON.stringify(legacy));
    expect(await envPort(work)).toBe(String(old.port));
    const env = await runCli(["env", "--json"], personal);
    expect(new URL(JSON.parse(env.stdout).OPENAI_BASE_URL).port).toBe(String(personalPort));
    expect(env.stderr).toBe("");
  });
});

describe("gateway chat through a running gateway of this configuration (issue 43)", () => {
  /** The requests `gateway chat` sent through a running gateway, as the request log of `env`'s state directory has them. */
  const cliRequests = async (env: NodeJS.ProcessEnv) =>
    (await runCli(["logs", "--json"], env)).stdout
      .split("\n")
      .filter((line) => line.includes('"userAgent":"gateway-cli"'))
      .map((line) => JSON.parse(line) as { model: string; status: number });
  // The running gateway's own request lines, in its detached log: a one-off chat in its own process writes none there
  // (its record goes to requests.jsonl, as the running gateway's does).
  const servedByRunning = (stateDir: string) => readFileSync(join(stateDir, "gateway-any-port.log"), "utf8").split("\n").filter((line) => / POST \/v1\//.test(line));

  it("sends a one-off prompt to it; not to one started before config.json changed, nor to another configuration's", async () => {
    const stateDir = configurations.stateDir();
    const shared = { GATEWAY_LOCAL_KEY: "gw-one-person-two-configs-0123456789abcdef" };
    const mine = await configuration(stateDir, shared, { upstream: "echo" });
    expect((await runCli(["chat", "-m", "echo-1", "alone"], mine)).stdout).toBe("echo: alone\n");
    await detach(mine, "--port", "0");
    const through = await runCli(["chat", "-m", "echo-1", "--api", "messages", "through"], mine);
    expect(through.stdout).toBe("echo: through\n");
    await expect.poll(() => servedByRunning(stateDir), { timeout: 10_000 }).toEqual([expect.stringContaining("POST /v1/messages echo-1 200")]);

    // This configuration with its default upstream overridden (GATEWAY_UPSTREAM) is not what the running one serves.
    const elsewhere = opened(await startFakeUpstream());
    const overridden = { ...mine, GATEWAY_UPSTREAM: elsewhere.url, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY };
    expect((await runCli(["chat", "-m", "any-model", "overridden"], overridden)).stdout).toBe("fake: overridden\n");
    expect(elsewhere.received).toHaveLength(1);

    // Another configuration in the same state directory, with the same local key, starts its own.
    const other = await configuration(stateDir, shared, { upstream: "echo" });
    expect((await runCli(["chat", "-m", "echo-1", "other"], other)).stdout).toBe("echo: other\n");
    // config.json changed after the gateway started: its routes may be others now.
    const file = join(mine.GATEWAY_CONFIG_DIR!, "config.json");
    writeFileSync(file, JSON.stringify({ upstream: "echo", models: { fresh: "echo-2" } }));
    expect((await runCli(["chat", "-m", "fresh", "changed"], mine)).stdout).toBe("echo: changed\n");
    // The running gateway served the one request; the request log holds every chat's record, wherever it ran.
    expect((await runCli(["stop"], mine)).code).toBe(0);
    expect(servedByRunning(stateDir)).toHaveLength(1);
    expect(await cliRequests(mine)).toHaveLength(5);
  });
});
