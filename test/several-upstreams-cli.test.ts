import { describe, expect, it } from "vitest";
import { cliEnv, runCli } from "./helpers/cli.js";
import { tempConfigDir } from "./helpers/gateway.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { scripted } from "./helpers/chat-script.js";
import { startFakeUpstream } from "./helpers/fake-upstream.js";

/** The commands of SPEC section 10 with several upstreams, as a user runs them. */

const opened = closeAfterEach();

/** An upstream listing one model named after it, and answering chat with its name; 401 without `key`. */
async function upstream(name: string, key?: string) {
  const fake = opened(await startFakeUpstream({ script: (req) => {
    if (key !== undefined && req.headers.authorization !== `Bearer ${key}`) return { status: 401, json: { error: { message: "bad key" } } };
    if (req.method === "GET") return { json: { object: "list", data: [{ id: `${name}-model`, object: "model", created: 1735689600, owned_by: name }] } };
    return scripted({ text: `from ${name}` })(req);
  } }));
  return fake;
}

async function setUp() {
  const [team, local] = [await upstream("team", "sk-team-0123456789"), await upstream("local")];
  const config = {
    upstream: "team",
    upstreams: {
      team: { url: team.url, key: "env:TEAM_KEY" },
      local: { url: local.url, formats: ["chat"], key: "none", models: ["qwen*"] },
    },
  };
  return { team, local, env: cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(config), TEAM_KEY: "sk-team-0123456789", GATEWAY_PORT: "1" }) };
}

describe("commands with several upstreams", () => {
  it("status lists every upstream with its URL, formats and where its key comes from", async () => {
    const { team, local, env } = await setUp();
    const status = await runCli(["status"], env);
    expect(status.code).toBe(1);
    expect(status.stderr).toMatch(new RegExp(`^ {2}team \\(default\\) +generic +${team.url} +chat,responses,messages,gemini +from \\$TEAM_KEY \\(set\\)$`, "m"));
    expect(status.stderr).toMatch(new RegExp(`^ {2}local +generic +${local.url} +chat +none needed \\(key: none\\)$`, "m"));
    expect(status.stderr).not.toContain("sk-team");
  });

  it("doctor checks each upstream: reachable, key accepted, and one that needs no key", async () => {
    const { team, local, env } = await setUp();
    const doctor = await runCli(["doctor"], env);
    const out = doctor.stdout + doctor.stderr;
    expect(out).toContain(`✔ Upstream team (${team.url}) reachable (HTTP 200)`);
    expect(out).toContain("✔ Upstream team accepts the key");
    expect(out).toContain(`✔ Upstream local (${local.url}) reachable (HTTP 200)`);
    expect(out).toContain("✔ Upstream local answers without a key");
    const wrong = await runCli(["doctor"], { ...env, TEAM_KEY: "sk-wrong-key-000" });
    expect(wrong.stdout + wrong.stderr).toContain("✖ Upstream team refused the key (HTTP 401)\n    fix: Set TEAM_KEY to a valid key in the gateway's environment and restart it.");
    expect(wrong.code).toBe(1);
    // An `env:` key is set in the environment: `gateway login team` would only answer that it needs no login.
    const unset = await runCli(["doctor"], { ...env, TEAM_KEY: undefined });
    expect(unset.stdout + unset.stderr).toContain("✖ Upstream team key: from $TEAM_KEY (unset)\n    fix: Set TEAM_KEY in the gateway's environment and restart it.");
    expect(unset.stdout + unset.stderr).not.toContain("gateway login");
  });

  it("login of an upstream whose key is not in the keychain says so and exits 0; an unknown name is usage with the closest one", async () => {
    const { env } = await setUp();
    const none = await runCli(["login", "local"], env);
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('The upstream local sends no key (key: "none"), so it needs no login.');
    const fromEnv = await runCli(["login", "team"], env);
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.stderr).toContain('The upstream team takes its key from $TEAM_KEY (key: "env:TEAM_KEY"), so it needs no login.');
    const typo = await runCli(["login", "locl"], env);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('No upstream is called "locl". Did you mean "local"?');
  });

  it("models lists the union with each id's upstream; --json prints it as GET /v1/models answers it", async () => {
    const { env } = await setUp();
    const table = await runCli(["models"], env);
    expect(table.code).toBe(0);
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+UPSTREAM\s+OWNER\s+CREATED$/);
    expect(table.stdout).toMatch(/^team-model\s+team\s+team\s+2025-01-01$/m);
    expect(table.stdout).toMatch(/^local-model\s+local\s+local\s+2025-01-01$/m);
    const json = JSON.parse((await runCli(["models", "--json"], env)).stdout);
    expect(json.data.map((m: { id: string }) => m.id)).toEqual(["team-model", "local-model"]);
  });

  it("chat routes like the server: a qwen model to the local upstream, the rest to the default", async () => {
    const { env } = await setUp();
    expect((await runCli(["chat", "-m", "qwen3", "hi"], env)).stdout).toBe("from local\n");
    expect((await runCli(["chat", "-m", "gpt-x", "--no-stream", "hi"], env)).stdout).toBe("from team\n");
    // The local upstream speaks only chat: Anthropic's and Google's styles are translated for it, as by the server.
    expect((await runCli(["chat", "--api", "messages", "-m", "qwen3", "hi"], env)).stdout).toBe("from local\n");
    expect((await runCli(["chat", "--api", "gemini", "-m", "qwen3", "--no-stream", "hi"], env)).stdout).toBe("from local\n");
  });
});
