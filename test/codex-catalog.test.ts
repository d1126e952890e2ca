import { describe, expect, it } from "vitest";
import { CATALOG_INSTRUCTIONS } from "../src/formats/responses/codex-catalog.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { startFakeUpstream, type Received } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";
import { rawRequest } from "./helpers/http.js";

/**
 * Codex's model catalog (SPEC 12): `GET /v1/models?client_version=...` answered in the shape Codex decodes. The fields
 * below are those codex-rs `protocol/src/openai_models.rs` `ModelInfo` requires (no serde default): without any one of
 * them Codex 0.171 logs "failed to decode models response" and ignores the whole list.
 */
const REQUIRED = [
  "slug",
  "display_name",
  "supported_reasoning_levels",
  "shell_type",
  "visibility",
  "supported_in_api",
  "priority",
  "base_instructions",
  "supports_reasoning_summaries",
  "support_verbosity",
  "truncation_policy",
  "supports_parallel_tool_calls",
  "experimental_supported_tools",
];

const opened = closeAfterEach();

/** A server that lists `data` at /v1/models in OpenAI's shape and knows nothing else. */
const lister = (data: Record<string, unknown>[]) => (request: Received) =>
  request.method === "GET" && request.path === "/v1/models" ? { json: { object: "list", data } } : { status: 404, json: { error: { message: `no route ${request.path}` } } };

async function twoUpstreams() {
  // vLLM says its model's window in its list (max_model_len) and takes a reasoning effort; the generic server says
  // nothing, and its window comes from the config.
  const vllm = opened(await startFakeUpstream({ script: lister([{ id: "qwen", object: "model", created: 0, owned_by: "vllm", max_model_len: 32768 }]) }));
  const local = opened(await startFakeUpstream({ script: lister([{ id: "small-local", object: "model", created: 0, owned_by: "me" }]) }));
  const file = {
    upstream: "vllm",
    upstreams: { vllm: { kind: "vllm", url: vllm.url }, local: { url: local.url, formats: ["chat"], key: "none", models: ["small-local"], contextWindow: 16000 } },
    models: { fast: "small-local" },
  };
  return opened(await startTestGateway(undefined, { file }));
}

describe("Codex's model catalog (SPEC 12)", () => {
  it("GET /v1/models?client_version= lists every reachable model and alias in Codex's shape, with the window the gateway knows and reasoning levels where the upstream reasons", async () => {
    const gateway = await twoUpstreams();
    const res = await rawRequest(gateway.url, { path: "/v1/models?client_version=0.171.0", headers: { authorization: `Bearer ${LOCAL_KEY}` } });
    expect(res.status).toBe(200);
    expect(res.headers["x-gateway-upstream"]).toBe("vllm,local");
    const { models } = JSON.parse(res.body) as { models: Record<string, unknown>[] };
    expect(models.map((model) => model.slug)).toEqual(["qwen", "small-local", "fast"]);
    for (const model of models) {
      for (const field of REQUIRED) expect(model, `${String(model.slug)}.${field}`).toHaveProperty(field);
      expect(model.base_instructions).toBe(CATALOG_INSTRUCTIONS);
      expect(model.visibility).toBe("list");
    }
    const [qwen, small, fast] = models;
    expect(qwen).toMatchObject({ context_window: 32768, default_reasoning_level: "medium", supports_reasoning_summaries: true });
    expect((qwen!.supported_reasoning_levels as { effort: string }[]).map((level) => level.effort)).toEqual(["low", "medium", "high"]);
    expect(small).toMatchObject({ context_window: 16000, supported_reasoning_levels: [], supports_reasoning_summaries: false });
    expect(small).not.toHaveProperty("default_reasoning_level");
    // An alias has its target's window: a request for it goes where its target goes.
    expect(fast).toMatchObject({ slug: "fast", context_window: 16000 });
    expect(gateway.records.at(-1)).toMatchObject({ path: "/v1/models", status: 200 });
  });

  it("the same path without client_version is still OpenAI's model list", async () => {
    const gateway = await twoUpstreams();
    const res = await rawRequest(gateway.url, { path: "/v1/models", headers: { authorization: `Bearer ${LOCAL_KEY}` } });
    expect(res.status).toBe(200);
    const list = JSON.parse(res.body) as { object: string; data: { id: string }[] };
    expect(list.object).toBe("list");
    expect(list.data.map((entry) => entry.id)).toEqual(["qwen", "small-local", "fast"]);
  });

  it("asks for the local key like any model list: 401 in OpenAI's shape without it", async () => {
    const gateway = await twoUpstreams();
    const res = await rawRequest(gateway.url, { path: "/v1/models?client_version=0.171.0" });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ error: { type: "authentication_error" } });
  });
});
