import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { cliUsers, detachGateway } from "./helpers/cli-users.js";
import { spentRecord, writeRequestLog } from "./helpers/request-records.js";
import { spanOf } from "../src/budgets/periods.js";
import { formatDateTime } from "../src/request-log/format.js";
import { completion, startFakeUpstream } from "./helpers/fake-upstream.js";
import { toUpstreamError } from "../src/upstream/network-failure.js";
import { freePort } from "./helpers/free-port.js";

/** Issue 47's first hour (items 13-20): rough edges a new user met with the packed tarball. */
const { user, privateDir } = cliUsers("first-hour-47-");

const detach = detachGateway;

describe("a syntax error in config.json (item 13)", () => {
  it("names line, column and the trailing comma; status, logs and stop (also -p) warn and go on", async () => {
    const u = await user({}, { upstream: "echo" });
    const { port, pid } = await detach(u);
    writeFileSync(u.configFile, '{\n  "upstream": "echo",\n  "retries": 1,\n}\n');
    const said = `⚠ Invalid configuration in ${u.configFile}: not valid JSON (line 3, column 15: a trailing comma after the last entry (JSON allows none)). Going on without it: this command needs only the running gateway's record.`;

    const started = await runCli(["start", "--detach"], u.env);
    expect(started.code).toBe(1);
    expect(started.stderr).toContain(`✖ Invalid configuration in ${u.configFile}: not valid JSON (line 3, column 15: a trailing comma after the last entry (JSON allows none)).`);

    const status = await runCli(["status"], u.env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).toContain(said);
    expect(status.stderr).toContain("Upstreams: not known until config.json can be read");
    expect(status.stderr).toContain(`Gateway`);
    expect(status.stderr).toContain(`is running on http://127.0.0.1:${port} (pid ${pid}`);

    const logs = await runCli(["logs"], u.env);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stderr).toContain(said);

    const stopped = await runCli(["stop", "-p", String(port)], u.env);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).toContain(said);
    expect(stopped.stderr).toContain(`Gateway ${pid} stopped.`);
  });

  it("other syntax errors are named where they are", async () => {
    const u = await user();
    const cases: [string, string][] = [
      ['{"upstream": "echo" "port": 1}', "line 1, column 21: a comma expected between entries"],
      ["{\n  upstream: 1\n}", "line 2, column 3: an unexpected character (strings and names need double quotes; true, false and null are lower case)"],
      ['{\n  "retries": 1 // one\n}', "line 2, column 16: a comment (JSON has none)"],
      ['{"upstreams": {"a": {"url": "http://127.0.0.1:1",}}}', "line 1, column 49: a trailing comma after the last entry (JSON allows none)"],
      ["", "the file is empty (write {} for no settings)"],
    ];
    for (const [text, where] of cases) {
      writeFileSync(u.configFile, text);
      const result = await runCli(["models"], u.env);
      expect(result.code, text).toBe(1);
      expect(result.stderr).toContain(`✖ Invalid configuration in ${u.configFile}: not valid JSON (${where}).`);
    }
  });
});

describe("errors the gateway made say so (item 18)", () => {
  it("a spent budget in gateway chat is the gateway's own: which one, the spend and the reset, never the upstream rate limiting", async () => {
    const paid = await startFakeUpstream({ script: () => ({ json: completion({ content: "from paid" }) }) });
    try {
      const state = privateDir();
      mkdirSync(state, { recursive: true, mode: 0o700 });
      // Spent earlier today: 30 input tokens at $0.10 each, $3 of a $2 daily budget.
      const record = spentRecord(Math.max(spanOf("daily", Date.now()).start, Date.now() - 1_000), "req_spent");
      writeRequestLog(state, [record]);
      const u = await user({ GATEWAY_STATE_DIR: state }, { prices: { "paid-*": { input: 100_000, output: 0 } }, upstreams: { paid: { url: paid.url, key: "none", budgets: { daily: 2 } } } });
      const chat = await runCli(["chat", "-m", "paid-1", "--no-stream", "hi"], u.env);
      expect(chat.code).toBe(1);
      const reset = formatDateTime(spanOf("daily", Date.now()).end);
      expect(chat.stderr).toBe(
        `✖ The gateway's own budget stopped the request (429), not the upstream: The daily budget of the upstream paid ($2.00) is spent: $3.00 estimated since the day began, so the request was not sent. It resets at ${reset} (local time). Wait until then, or raise "upstreams.paid.budgets.daily" in ${u.configFile} and restart the gateway.\n`,
      );
      expect(chat.stderr).not.toContain("rate limiting");
      expect(paid.received).toHaveLength(0);
    } finally {
      await paid.close();
    }
  });
});

describe("a config changed after the gateway started (item 17)", () => {
  it("gateway chat says in one line that it answers in its own process, and why; status says the gateway reads an older config", async () => {
    const u = await user({}, { upstream: "echo" });
    const { port } = await detach(u);
    const before = await runCli(["chat", "-m", "echo-1", "--no-stream", "hi"], u.env);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stderr).toBe("");
    // A touch is a change: the record keeps no copy of what the gateway read. A second later than now, so no clock
    // granularity can place it before the start.
    const later = Date.now() / 1000 + 1;
    utimesSync(u.configFile, later, later);
    const chat = await runCli(["chat", "-m", "echo-1", "--no-stream", "hi"], u.env);
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stderr).toBe(
      `ℹ The gateway on port ${port} reads an older config.json (it changed after the gateway started), so this chat answers in its own process and is in none of its log, stats or dashboard; \`gateway stop && gateway start --detach\` makes it read the config again.\n`,
    );
    const status = await runCli(["status"], u.env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).toContain(`⚠ It reads an older config: ${u.configFile} changed after it started. \`gateway stop && gateway start --detach\` makes it read the file again.\n`);
  });
});

describe("advice that fits where the upstream is (item 20)", () => {
  it("doctor: a server on this machine that is not up is to be started; no proxy is mentioned", async () => {
    const closed = await freePort();
    const u = await user({}, { upstreams: { local: { url: `http://127.0.0.1:${closed}`, key: "none" } } });
    const doctor = await runCli(["doctor"], u.env);
    expect(doctor.code).toBe(1);
    const out = doctor.stdout + doctor.stderr;
    expect(out).toContain(`Upstream http://127.0.0.1:${closed} unreachable: The upstream http://127.0.0.1:${closed} refused the connection. Start the server on this machine, or fix the port in the upstream URL.`);
    expect(out).toContain("Start the server on this machine, or fix the URL's port in config.json (or gateway login --upstream <url>).");
    expect(out).not.toContain("HTTPS_PROXY");
  });

  it("a remote provider that refuses the connection is never to be started: the URL and the proxy are", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    expect(toUpstreamError(refused, "openai", "https://api.openai.com").message).toBe(
      "The upstream https://api.openai.com refused the connection. Check the upstream URL and port, and any proxy on the way (HTTPS_PROXY, NO_PROXY).",
    );
  });
});
