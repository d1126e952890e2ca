import { describe, expect, it } from "vitest";
import type { Json } from "../src/translate/hub.js";
import { responsesClient } from "../src/formats/responses/translators.js";
import { EXEC_CODE, codeModeRequest, codex045Request, topLevelRequest } from "./helpers/codex-requests.js";
import { hubReply, testContext, testSeal } from "./helpers/translate.js";
import { envelopeOf, stamped, toHub, usage } from "./helpers/translate-responses.js";

/** Chat replies as Responses responses (`responsesClient.replyFromHub`). */

describe("responses replies", () => {
  it("answers reasoning, text and a function call as items, with usage counted the Responses way", () => {
    const { hints } = toHub(topLevelRequest());
    const reply = hubReply(
      { role: "assistant", content: "Running them.", reasoning_content: "Tests first.", tool_calls: [{ id: "call_1", type: "function", function: { name: "exec_command", arguments: '{"cmd":"npm test"}' } }] },
      "tool_calls",
      usage,
    );
    expect(stamped(responsesClient.replyFromHub(reply, hints, testContext()))).toEqual(
      envelopeOf({
        parallel_tool_calls: false,
        reasoning: { effort: "high", summary: "auto" },
        output: [
          { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "Tests first." }], encrypted_content: testSeal.seal("Tests first.", "reasoning_content") },
          { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Running them.", annotations: [] }] },
          { id: "fc_1", type: "function_call", status: "completed", arguments: '{"cmd":"npm test"}', call_id: "call_1", name: "exec_command" },
        ],
      }),
    );
  });

  it("sends a freeform tool's call back as a custom_tool_call whose input is the unwrapped string, namespaced as declared (table E row 19)", () => {
    const { hints } = toHub(codeModeRequest());
    const reply = hubReply({ role: "assistant", content: null, tool_calls: [{ id: "call_7", type: "function", function: { name: "functions__exec", arguments: JSON.stringify({ input: EXEC_CODE }) } }] }, "tool_calls", usage);
    expect(stamped(responsesClient.replyFromHub(reply, hints, testContext()))).toEqual(
      envelopeOf({
        reasoning: { effort: "medium", summary: "auto" },
        output: [{ id: "ctc_1", type: "custom_tool_call", status: "completed", call_id: "call_7", name: "exec", namespace: "functions", input: EXEC_CODE }],
      }),
    );
  });

  it.each([
    ["the input key", JSON.stringify({ input: "*** Begin Patch\n*** End Patch\n" }), "*** Begin Patch\n*** End Patch\n"],
    ["another single key", JSON.stringify({ patch: "*** Begin Patch\n*** End Patch\n" }), "*** Begin Patch\n*** End Patch\n"],
    ["broken JSON with a raw newline", '{"input": "*** Begin Patch\n*** End Patch\n"', "*** Begin Patch\n*** End Patch\n"],
    ["the patch sent bare", "*** Begin Patch\n*** End Patch", "*** Begin Patch\n*** End Patch"],
  ])("reads apply_patch's input from %s", (_case, args, input) => {
    const { hints } = toHub(codex045Request());
    const reply = hubReply({ role: "assistant", content: null, tool_calls: [{ id: "call_p", type: "function", function: { name: "apply_patch", arguments: args } }] }, "tool_calls");
    const output = (responsesClient.replyFromHub(reply, hints, testContext()) as { output: Json[] }).output;
    expect(output).toEqual([{ id: "ctc_1", type: "custom_tool_call", status: "completed", call_id: "call_p", name: "apply_patch", input }]);
  });

  it.each([
    ["a missing brace", '{"path":"a"', '{"path":"a"}'],
    ["a trailing comma", '{"path":"a",}', '{"path":"a"}'],
    ["no arguments at all", "", "{}"],
    ["valid JSON, kept byte for byte", '{ "b": 1, "a": 2 }', '{ "b": 1, "a": 2 }'],
    ["text that is not JSON, under INVALID_JSON as it came (item 2)", "not json at all", '{"INVALID_JSON":"not json at all"}'],
    ["JSON that is not an object, under INVALID_JSON as it came (item 3)", "[1,2]", '{"INVALID_JSON":"[1,2]"}'],
    ["single quotes, under INVALID_JSON rather than guessed (item 2)", "{'path': 'a'}", '{"INVALID_JSON":"{\'path\': \'a\'}"}'],
  ])("reads a function call's arguments with %s (table E row 24)", (_case, args, expected) => {
    const reply = hubReply({ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "read", arguments: args } }] }, "tool_calls");
    expect((responsesClient.replyFromHub(reply, {}, testContext()) as { output: Json[] }).output[0]!.arguments).toBe(expected);
  });

  it("names a namespaced function by its member name and namespace, as codex-rs ResponseItem::FunctionCall reads it", () => {
    const { hints } = toHub(topLevelRequest());
    const reply = hubReply({ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "multi_agent_v1__spawn_agent", arguments: '{"task":"x"}' } }] }, "tool_calls");
    expect((responsesClient.replyFromHub(reply, hints, testContext()) as { output: Json[] }).output).toEqual([
      { id: "fc_1", type: "function_call", status: "completed", arguments: '{"task":"x"}', call_id: "c", name: "spawn_agent", namespace: "multi_agent_v1" },
    ]);
  });

  it.each([
    ["length", "incomplete", { reason: "max_output_tokens" }],
    ["content_filter", "incomplete", { reason: "content_filter" }],
    ["stop", "completed", null],
  ])("reports finish_reason %s as status %s", (finish, status, details) => {
    const reply = responsesClient.replyFromHub(hubReply({ role: "assistant", content: "Partial" }, finish), {}, testContext()) as Json;
    expect([reply.status, reply.incomplete_details]).toEqual([status, details]);
  });

  it("completes a reply that holds a tool call even when the upstream said stop (table E row 6), but not one cut by length (item 8)", () => {
    const status = (finish: string) =>
      (responsesClient.replyFromHub(hubReply({ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "read", arguments: "{}" } }] }, finish), {}, testContext()) as Json).status;
    expect([status("stop"), status("tool_calls"), status("length")]).toEqual(["completed", "completed", "incomplete"]);
  });

  it("holds no empty message item when the upstream sent empty content (table E row 7), and zero usage when none came", () => {
    const reply = hubReply({ role: "assistant", content: "", tool_calls: [{ id: "c", type: "function", function: { name: "read", arguments: "{}" } }] }, "tool_calls");
    const body = responsesClient.replyFromHub(reply, {}, testContext()) as { output: Json[]; usage: Json };
    expect(body.output.map((item) => item.type)).toEqual(["function_call"]);
    expect(body.usage).toEqual({ input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 });
  });

  it("gives a reasoning-only answer (DeepSeek V4-flash) a message too, or `codex exec` prints nothing", () => {
    const body = responsesClient.replyFromHub(hubReply({ content: "", reasoning_content: "It is 4." }), {}, testContext()) as { output: Json[] };
    expect(body.output.map((item) => [item.type, item.type === "message" ? (item.content as Json[])[0]!.text : (item.summary as Json[])[0]!.text])).toEqual([
      ["reasoning", "It is 4."],
      ["message", "It is 4."],
    ]);
  });

  it("seals reasoning so the next request gives it back to the upstream under the same field", () => {
    const reply = hubReply({ role: "assistant", content: "Hi", reasoning: "Because." }, "stop");
    const body = responsesClient.replyFromHub(reply, {}, testContext()) as { output: Json[] };
    const { request } = toHub({ input: [{ role: "user", content: "Hi" }, ...body.output, { role: "user", content: "More" }] });
    expect(request.messages[1]).toEqual({ role: "assistant", content: "Hi", reasoning: "Because." });
  });
});
