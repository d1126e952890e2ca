import { describe, expect, it } from "vitest";
import type { Json } from "../src/translate/hub.js";
import { responsesClient } from "../src/formats/responses/translators.js";
import type { ClientEvent } from "../src/translate/types.js";
import { EXEC_CODE, codeModeRequest } from "./helpers/codex-requests.js";
import { checkedStream, deltaItem, testContext, testSeal, usageItem } from "./helpers/translate.js";
import { canonicalScript, completed, data, envelopeOf, responseUsage, runStream, stamped, toHub, toolChunk, types, usage } from "./helpers/translate-responses.js";

/** Chat streams as Responses event streams (`responsesClient.streamFromHub`, research C2), for every upstream tool-call shape of research B2. */

describe("responses streams: the event sequence", () => {
  it("sends research C2's canonical sequence, numbered from 0, with the usage that came after the finish chunk (table E row 1)", () => {
    const events = stamped(runStream(canonicalScript()));
    const opening = envelopeOf({ status: "in_progress", usage: null });
    const reasoning = { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "Thinking." }], encrypted_content: testSeal.seal("Thinking.", "reasoning_content") };
    const message = { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Let me look.", annotations: [] }] };
    const call = { id: "fc_1", type: "function_call", status: "completed", arguments: '{"cmd":"ls"}', call_id: "call_a", name: "exec_command" };
    const rs = { item_id: "rs_1", output_index: 0, summary_index: 0 };
    const msg = { item_id: "msg_1", output_index: 1, content_index: 0 };
    const fc = { item_id: "fc_1", output_index: 2 };
    const expected: [string, Json][] = [
      ["response.created", { response: opening }],
      ["response.in_progress", { response: opening }],
      ["response.output_item.added", { output_index: 0, item: { id: "rs_1", type: "reasoning", summary: [] } }],
      ["response.reasoning_summary_part.added", { ...rs, part: { type: "summary_text", text: "" } }],
      ["response.reasoning_summary_text.delta", { ...rs, delta: "Think" }],
      ["response.reasoning_summary_text.delta", { ...rs, delta: "ing." }],
      ["response.reasoning_summary_text.done", { ...rs, text: "Thinking." }],
      ["response.reasoning_summary_part.done", { ...rs, part: { type: "summary_text", text: "Thinking." } }],
      ["response.output_item.done", { output_index: 0, item: reasoning }],
      ["response.output_item.added", { output_index: 1, item: { ...message, status: "in_progress", content: [] } }],
      ["response.content_part.added", { ...msg, part: { type: "output_text", text: "", annotations: [] } }],
      ["response.output_text.delta", { ...msg, delta: "Let me look.", logprobs: [] }],
      ["response.output_text.done", { ...msg, text: "Let me look.", logprobs: [] }],
      ["response.content_part.done", { ...msg, part: { type: "output_text", text: "Let me look.", annotations: [] } }],
      ["response.output_item.done", { output_index: 1, item: message }],
      ["response.output_item.added", { output_index: 2, item: { ...call, status: "in_progress", arguments: "" } }],
      ["response.function_call_arguments.delta", { ...fc, delta: '{"cmd":' }],
      ["response.function_call_arguments.delta", { ...fc, delta: '"ls"}' }],
      ["response.function_call_arguments.done", { ...fc, name: "exec_command", arguments: '{"cmd":"ls"}' }],
      ["response.output_item.done", { output_index: 2, item: call }],
      ["response.completed", { response: envelopeOf({ output: [reasoning, message, call] }) }],
    ];
    expect(events).toEqual(expected.map(([type, fields], n) => ({ event: type, data: { type, sequence_number: n, ...fields } })));
  });

  it("sends each event as soon as the chunk that completes it arrives, and holds response.completed until the end", () => {
    const stream = checkedStream(responsesClient, {}, testContext());
    expect(types(stream.start())).toEqual(["response.created", "response.in_progress"]);
    expect(types(stream.push(deltaItem({ content: "Hel" })))).toEqual(["response.output_item.added", "response.content_part.added", "response.output_text.delta"]);
    expect(types(stream.push(deltaItem({ content: "lo" })))).toEqual(["response.output_text.delta"]);
    expect(types(stream.push(deltaItem({}, "stop")))).toEqual(["response.output_text.done", "response.content_part.done", "response.output_item.done"]);
    expect(stream.push(usageItem(usage))).toEqual([]);
    expect(types(stream.finish())).toEqual(["response.completed"]);
    expect(stream.finish()).toEqual([]);
  });

  it("opens with response.created when push comes first, and start() after that sends nothing", () => {
    const stream = checkedStream(responsesClient, {}, testContext());
    expect(types(stream.push(deltaItem({ content: "Hi" })))).toEqual(["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added", "response.output_text.delta"]);
    expect(stream.start()).toEqual([]);
  });

  it("closes every item before the next opens, text -> tool -> text included (table E row 2)", () => {
    const events = runStream([
      deltaItem({ content: "A" }),
      toolChunk([{ index: 0, id: "c1", type: "function", function: { name: "read", arguments: "{}" } }]),
      deltaItem({ content: "B" }),
      deltaItem({ reasoning_content: "hmm" }),
      deltaItem({ content: "C" }, "stop"),
    ]);
    const items = events.filter((event) => event.event === "response.output_item.added" || event.event === "response.output_item.done");
    expect(items.map((event) => `${event.event === "response.output_item.added" ? "+" : "-"}${(event.data as { output_index: number }).output_index}`)).toEqual(["+0", "-0", "+1", "-1", "+2", "-2", "+3", "-3", "+4", "-4"]);
    expect((completed(events).output as Json[]).map((item) => item.type)).toEqual(["message", "function_call", "message", "reasoning", "message"]);
    expect(types(events).map((_, n) => (events[n]!.data as { sequence_number: number }).sequence_number)).toEqual(events.map((_, n) => n));
  });

  it("ends a stream with no finish reason and no [DONE] by the grammar, and an empty one too", () => {
    expect(types(runStream([deltaItem({ content: "cut" })])).slice(-4)).toEqual(["response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"]);
    const empty = runStream([]);
    expect(types(empty)).toEqual(["response.created", "response.in_progress", "response.completed"]);
    expect(completed(empty)).toMatchObject({ status: "completed", output: [] });
  });

  it("ends a stream cut by length with response.completed whose status is incomplete", () => {
    const events = runStream([deltaItem({ content: "Partial" }), deltaItem({}, "length"), usageItem(usage)]);
    expect(types(events).at(-1)).toBe("response.completed");
    expect(completed(events)).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, usage: responseUsage });
  });

  it("completes when a tool call was streamed even if the upstream finished with stop (table E row 6), and with no item when tool_calls came without a call", () => {
    const withCall = runStream([toolChunk([{ index: 0, id: "c1", type: "function", function: { name: "read", arguments: "{}" } }]), deltaItem({}, "stop")]);
    expect(completed(withCall).status).toBe("completed");
    const withoutCall = runStream([deltaItem({}, "tool_calls")]);
    expect(completed(withoutCall)).toMatchObject({ status: "completed", output: [] });
  });

  it("closes a reasoning-only answer with a message holding the reasoning, as the whole reply has", () => {
    const events = runStream([deltaItem({ role: "assistant", content: "" }), deltaItem({ reasoning_content: "It is " }), deltaItem({ reasoning_content: "4." }), deltaItem({}, "stop")]);
    const output = completed(events).output as Json[];
    expect(output.map((item) => item.type)).toEqual(["reasoning", "message"]);
    expect(output[1]).toMatchObject({ content: [{ type: "output_text", text: "It is 4." }] });
    expect(types(events).slice(-8)).toEqual([
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
  });

  it("never opens an item for empty or placeholder text and reasoning (table E row 7)", () => {
    const events = runStream([deltaItem({ role: "assistant", content: "" }), deltaItem({ reasoning_content: "" }), deltaItem({ content: null, reasoning: null }), deltaItem({}, "stop")]);
    expect(types(events)).toEqual(["response.created", "response.in_progress", "response.completed"]);
  });

  it("answers keepAlive with the API's own keepalive event, numbered in sequence, and nothing after the end (table E row 15)", () => {
    const stream = checkedStream(responsesClient, {}, testContext());
    expect(stream.keepAlive()).toEqual([
      expect.objectContaining({ event: "response.created" }),
      expect.objectContaining({ event: "response.in_progress" }),
      { event: "keepalive", data: { type: "keepalive", sequence_number: 2 } },
    ]);
    expect(stream.keepAlive()).toEqual([{ event: "keepalive", data: { type: "keepalive", sequence_number: 3 } }]);
    stream.finish();
    expect(stream.keepAlive()).toEqual([]);
  });
});

describe("responses streams: tool-call chunk shapes (research B2)", () => {
  const callArgs = (events: ClientEvent[]) => (completed(events).output as Json[]).map((item) => [item.call_id, item.name, item.arguments]);

  it("reads a whole call in one chunk (Ollama) as one argument delta", () => {
    const events = runStream([toolChunk([{ index: 0, id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a"}' } }], "tool_calls")]);
    expect(data(events, "response.function_call_arguments.delta").map((event) => event.delta)).toEqual(['{"path":"a"}']);
    expect(callArgs(events)).toEqual([["call_1", "read", '{"path":"a"}']]);
  });

  it("reads an id repeated on every piece (LiteLLM, SGLang) as one call, its arguments once (table E row 3)", () => {
    const events = runStream([
      toolChunk([{ index: 0, id: "call_1", type: "function", function: { name: "read", arguments: '{"pa' } }]),
      toolChunk([{ index: 0, id: "call_1", type: "function", function: { arguments: 'th":"a"}' } }]),
      toolChunk([{ index: 0, id: "call_1", function: { arguments: '{"path":"a"}' } }], "tool_calls"),
    ]);
    expect(callArgs(events)).toEqual([["call_1", "read", '{"path":"a"}']]);
  });

  it("reads a second call on index 0 with a new id (lmdeploy, SGLang) as a second item: parallel calls stay apart (table E row 4)", () => {
    const events = runStream([
      toolChunk([{ index: 0, id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a"}' } }]),
      toolChunk([{ index: 0, id: "call_2", type: "function", function: { name: "read", arguments: '{"path":"b"}' } }]),
      deltaItem({}, "tool_calls"),
    ]);
    expect(callArgs(events)).toEqual([
      ["call_1", "read", '{"path":"a"}'],
      ["call_2", "read", '{"path":"b"}'],
    ]);
    expect((completed(events).output as Json[]).map((item) => item.id)).toEqual(["fc_1", "fc_2"]);
  });

  it("reads the same call sent at several indexes (LocalAI) and two pieces for one index in one chunk as one call", () => {
    const events = runStream([
      toolChunk([
        { index: 0, id: "call_1", type: "function", function: { name: "read", arguments: '{"pa' } },
        { index: 0, function: { arguments: 'th":"a"}' } },
      ]),
      toolChunk([{ index: 1, id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a"}' } }], "tool_calls"),
    ]);
    expect(callArgs(events)).toEqual([["call_1", "read", '{"path":"a"}']]);
  });

  it("makes up an id when the upstream never sends one (vLLM) and waits for the name before opening the item (table E row 5)", () => {
    const events = runStream([toolChunk([{ index: 0, function: { arguments: '{"path":' } }]), toolChunk([{ index: 0, function: { name: "read", arguments: '"a"}' } }]), deltaItem({}, "tool_calls")]);
    const added = data(events, "response.output_item.added");
    expect(added).toHaveLength(1);
    expect(added[0]!.item).toMatchObject({ name: "read", call_id: "call_1" });
    expect(callArgs(events)).toEqual([["call_1", "read", '{"path":"a"}']]);
  });

  it("turns arguments sent as an object (zai-proxy) into JSON text", () => {
    const events = runStream([toolChunk([{ index: 0, id: "c", type: "function", function: { name: "read", arguments: { path: "a" } } }], "tool_calls")]);
    expect(callArgs(events)).toEqual([["c", "read", '{"path":"a"}']]);
  });

  it("streams broken arguments as they came but gives the repaired ones in the done events, which Codex reads", () => {
    const events = runStream([toolChunk([{ index: 0, id: "c", type: "function", function: { name: "read", arguments: '{"path":"a"' } }], "tool_calls")]);
    expect(data(events, "response.function_call_arguments.delta").map((event) => event.delta)).toEqual(['{"path":"a"']);
    expect(data(events, "response.function_call_arguments.done")[0]!.arguments).toBe('{"path":"a"}');
    expect(callArgs(events)).toEqual([["c", "read", '{"path":"a"}']]);
  });

  it("keeps interleaved parallel calls whole: the second waits until the first's arguments are complete", () => {
    const events = runStream([
      toolChunk([{ index: 0, id: "c1", type: "function", function: { name: "read", arguments: '{"path":' } }]),
      toolChunk([{ index: 1, id: "c2", type: "function", function: { name: "read", arguments: '{"path":' } }]),
      toolChunk([{ index: 0, function: { arguments: '"a"}' } }]),
      toolChunk([{ index: 1, function: { arguments: '"b"}' } }]),
      deltaItem({}, "tool_calls"),
    ]);
    expect(callArgs(events)).toEqual([
      ["c1", "read", '{"path":"a"}'],
      ["c2", "read", '{"path":"b"}'],
    ]);
    expect(data(events, "response.function_call_arguments.delta").map((event) => [event.item_id, event.delta])).toEqual([
      ["fc_1", '{"path":'],
      ["fc_1", '"a"}'],
      ["fc_2", '{"path":'],
      ["fc_2", '"b"}'],
    ]);
  });

  it("streams a freeform tool's call as a custom_tool_call item with its input delta and done", () => {
    const { hints } = toHub(codeModeRequest());
    const args = JSON.stringify({ input: EXEC_CODE });
    const events = stamped(
      runStream(
        [toolChunk([{ index: 0, id: "call_x", type: "function", function: { name: "functions__exec", arguments: args.slice(0, 10) } }]), toolChunk([{ index: 0, function: { arguments: args.slice(10) } }]), deltaItem({}, "tool_calls")],
        hints,
      ),
    );
    const item = { id: "ctc_1", type: "custom_tool_call", status: "completed", call_id: "call_x", name: "exec", namespace: "functions", input: EXEC_CODE };
    expect(events.slice(2, -1).map((event) => event.data)).toEqual([
      { type: "response.output_item.added", sequence_number: 2, output_index: 0, item: { ...item, status: "in_progress", input: "" } },
      { type: "response.custom_tool_call_input.delta", sequence_number: 3, item_id: "ctc_1", output_index: 0, delta: EXEC_CODE },
      { type: "response.custom_tool_call_input.done", sequence_number: 4, item_id: "ctc_1", output_index: 0, input: EXEC_CODE },
      { type: "response.output_item.done", sequence_number: 5, output_index: 0, item },
    ]);
  });
});

describe("responses streams: failures", () => {
  it("fails before anything was sent with response.created, response.in_progress, then response.failed and nothing after (table E rows 16, 17)", () => {
    const stream = checkedStream(responsesClient, {}, testContext());
    const events = stamped(stream.fail({ status: 502, type: "api_error", message: "upstream closed", param: null, code: "upstream_error" }));
    expect(types(events)).toEqual(["response.created", "response.in_progress", "response.failed"]);
    expect(events[2]!.data).toEqual({
      type: "response.failed",
      sequence_number: 2,
      response: envelopeOf({ status: "failed", usage: null, error: { code: "server_error", message: "upstream closed" } }),
    });
    expect([...stream.push(deltaItem({ content: "late" })), ...stream.finish(), ...stream.keepAlive(), ...stream.fail(events[2] as never)]).toEqual([]);
  });

  it("leaves a half-streamed call out of a failed response, so Codex never runs it", () => {
    const stream = checkedStream(responsesClient, {}, testContext());
    stream.push(deltaItem({ content: "Reading." }));
    stream.push(toolChunk([{ index: 0, id: "c1", type: "function", function: { name: "read", arguments: '{"pa' } }]));
    const events = stream.push({ type: "error", error: { status: 502, type: "api_error", message: "boom", param: null, code: null } });
    expect(types(events)).toEqual(["response.failed"]);
    const response = (events[0]!.data as { response: { output: Json[] } }).response;
    expect(response.output.map((item) => item.type)).toEqual(["message"]);
  });

  it.each([
    [400, "This model's maximum context length is 8192 tokens", "context_length_exceeded"],
    [400, "prompt is too long: 210000 tokens > 200000 maximum", "context_length_exceeded"],
    [429, "Rate limit reached, try again in 2s", "rate_limit_exceeded"],
    [504, "The upstream timed out.", "server_error"],
  ])("gives a %i %j the code %s Codex acts on", (status, message, code) => {
    const events = checkedStream(responsesClient, {}, testContext()).fail({ status, type: "api_error", message, param: null, code: null });
    expect((events.at(-1)!.data as { response: { error: Json } }).response.error).toEqual({ code, message });
  });
});
