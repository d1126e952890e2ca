import { accumulateResponse } from "openai/lib/responses/ResponseAccumulator.mjs";
import { describe, expect, it } from "vitest";
import { encodeEvents } from "../src/sse/sse.js";
import type { Json } from "../src/translate/hub.js";
import { responsesClient } from "../src/formats/responses/translators.js";
import type { HubStreamItem } from "../src/translate/types.js";
import { EXEC_CODE, codeModeRequest, text } from "./helpers/codex-requests.js";
import { checkedStream, deltaItem, hubReply, testContext, usageItem } from "./helpers/translate.js";
import { completed, data, runStream, sdkAnswering, stamped, toHub, toolChunk, unparsed, usage } from "./helpers/translate-responses.js";

/** Responses streams as the openai SDK and Codex read them: the same response as the whole reply, every item whole in `output_item.done`. */

describe("responses streams: what the SDK and Codex make of them", () => {
  /** A script with every item kind: reasoning, text, a function call and a freeform call, usage after the finish. */
  const script = (): HubStreamItem[] => [
    deltaItem({ role: "assistant", reasoning_content: "Plan: " }),
    deltaItem({ reasoning_content: "list, then patch." }),
    deltaItem({ content: "Listing " }),
    deltaItem({ content: "files." }),
    toolChunk([{ index: 0, id: "call_1", type: "function", function: { name: "functions__wait", arguments: '{"cell_id":' } }]),
    toolChunk([{ index: 0, function: { arguments: '"1"}' } }]),
    toolChunk([{ index: 1, id: "call_2", type: "function", function: { name: "functions__exec", arguments: JSON.stringify({ input: EXEC_CODE }) } }]),
    deltaItem({}, "tool_calls"),
    usageItem(usage),
  ];
  const scriptReply = hubReply(
    {
      role: "assistant",
      content: "Listing files.",
      reasoning_content: "Plan: list, then patch.",
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "functions__wait", arguments: '{"cell_id":"1"}' } },
        { id: "call_2", type: "function", function: { name: "functions__exec", arguments: JSON.stringify({ input: EXEC_CODE }) } },
      ],
    },
    "tool_calls",
    usage,
  );

  it("parses in the openai SDK's ResponseStream, keepalives included, to the same response as the non-stream translation", async () => {
    const { hints } = toHub(codeModeRequest());
    const stream = checkedStream(responsesClient, hints, testContext());
    const events = [...stream.start(), ...stream.keepAlive(), ...script().flatMap((item) => [...stream.push(item), ...stream.keepAlive()]), ...stream.finish()];
    const streamed = await sdkAnswering(encodeEvents(events), "text/event-stream").responses.stream({ model: "client-model", input: "List the files." }).finalResponse();
    const whole = await sdkAnswering(JSON.stringify(responsesClient.replyFromHub(scriptReply, hints, testContext())), "application/json").responses.create({ model: "client-model", input: "List the files." });
    expect(stamped(unparsed(streamed))).toEqual(stamped(unparsed(whole)));
    expect(streamed.output_text).toBe("Listing files.");
    expect(streamed.output.map((item) => item.type)).toEqual(["reasoning", "message", "function_call", "custom_tool_call"]);
  });

  it("builds the final items from the deltas alone, as the SDK's accumulator does, equal to response.completed's output", () => {
    const { hints } = toHub(codeModeRequest());
    const events = runStream(script(), hints).map((event) => event.data as Parameters<typeof accumulateResponse>[0]);
    const beforeCompleted = events.slice(0, -1).reduce<ReturnType<typeof accumulateResponse> | undefined>((snapshot, event) => accumulateResponse(event, snapshot), undefined)!;
    expect(beforeCompleted.output).toEqual((events.at(-1) as unknown as { response: { output: Json[] } }).response.output);
  });

  it("gives Codex what codex-rs process_sse requires: a response object on created, whole ResponseItems on output_item.done, id and integer usage on completed", () => {
    const { hints } = toHub(codeModeRequest());
    const events = runStream(script(), hints);
    expect(events.every((event) => event.event === (event.data as { type: string }).type)).toBe(true);
    expect(data(events, "response.created")[0]!.response).toBeTypeOf("object");
    const done = data(events, "response.output_item.done").map((event) => event.item as Json);
    expect(done.map((item) => [item.type, item.call_id ?? null])).toEqual([
      ["reasoning", null],
      ["message", null],
      ["function_call", "call_1"],
      ["custom_tool_call", "call_2"],
    ]);
    expect(done[2]).toMatchObject({ name: "wait", namespace: "functions", arguments: '{"cell_id":"1"}' });
    const final = completed(events);
    expect(final.id).toBe("resp_1");
    for (const key of ["input_tokens", "output_tokens", "total_tokens"]) expect(Number.isInteger((final.usage as Json)[key])).toBe(true);
    for (const event of data(events, "response.reasoning_summary_text.delta")) expect(event.summary_index).toBe(0);
  });

  it("round-trips a whole Codex turn: the streamed items sent back as history become the assistant message and its calls", () => {
    const { hints } = toHub(codeModeRequest());
    const output = completed(runStream(script(), hints)).output as Json[];
    const history = [
      ...output,
      { type: "function_call_output", call_id: "call_1", output: "cell 1 finished" },
      { type: "custom_tool_call_output", call_id: "call_2", output: [text("README.md")] },
    ];
    expect(toHub(codeModeRequest(history)).request.messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: "Listing files.",
        reasoning_content: "Plan: list, then patch.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "functions__wait", arguments: '{"cell_id":"1"}' } },
          { id: "call_2", type: "function", function: { name: "functions__exec", arguments: JSON.stringify({ input: EXEC_CODE }) } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "cell 1 finished" },
      { role: "tool", tool_call_id: "call_2", content: "README.md" },
    ]);
  });
});
