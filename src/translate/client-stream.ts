import type { HubUsage } from "./hub.js";
import { createHubEventReader, reasoningStandsIn, type HubEvent } from "./hub-events.js";
import type { ClientEvent, ErrorFields, HubStreamItem, HubToClientStream } from "./types.js";

/** What the driver knows when the upstream stream has ended, for a format's closing events. */
export interface StreamEnd {
  /** The upstream's finish reason (the first it gave), if it gave one. */
  finishReason: string | undefined;
  /** The upstream's last usage report: chat servers send it after the finish reason, so it is known only now. */
  usage: HubUsage | undefined;
  /** How many tool calls the upstream made. */
  toolCalls: number;
  /** The reasoning, when it must also be the answer's text (`reasoningStandsIn`); undefined otherwise. */
  answerFromReasoning: string | undefined;
}

/**
 * One client format's part of a stream translation, in the shape of copilot-api's `(chunk, state) -> events`: each
 * function returns the client events to send now, from the format's own state, which it keeps in its closure.
 */
export interface ClientStreamFormat {
  /** The events that open the stream (`message_start` and a `ping`; `response.created` and `.in_progress`; none for Gemini). */
  opening(): ClientEvent[];
  /** The events one hub event makes. An upstream error never reaches it: the driver sends `failure` instead. */
  onEvent(event: Exclude<HubEvent, { type: "error" }>): ClientEvent[];
  /** The events that end the stream by the format's grammar once the upstream's bytes have ended. */
  closing(end: StreamEnd): ClientEvent[];
  /** The format's error event, the last event of the stream. */
  failure(error: ErrorFields): ClientEvent[];
  /** What keeps an open stream from looking dead; `justOpened` says the opening events are leaving with it. */
  keepAlive(justOpened: boolean): ClientEvent[];
}

/**
 * The driver every client-side stream translator shares (`HubToClientStream`): it reads the hub stream through one
 * `createHubEventReader`, opens the stream once (on `start()`, or before whatever comes first), hands each hub event
 * to the format, turns an upstream error into the format's failure, and guarantees that nothing follows the end
 * (`finish`, `fail`, or an error event), whichever comes first and however often each is called. It keeps what the
 * closing needs: the finish reason, the last usage, and the reasoning and visible text, so that a reply that is
 * reasoning alone can close with it as its answer.
 */
export function createClientStream(format: ClientStreamFormat): HubToClientStream {
  const reader = createHubEventReader();
  let started = false;
  let ended = false;
  let reasoning = "";
  let visibleText = "";
  let finishReason: string | undefined;
  let usage: HubUsage | undefined;

  function start(): ClientEvent[] {
    if (started || ended) return [];
    started = true;
    return format.opening();
  }

  function fail(error: ErrorFields): ClientEvent[] {
    if (ended) return [];
    const out = start();
    ended = true;
    return [...out, ...format.failure(error)];
  }

  function handle(events: HubEvent[]): ClientEvent[] {
    const out: ClientEvent[] = [];
    for (const event of events) {
      if (event.type === "error") return [...out, ...fail(event.error)];
      if (event.type === "reasoning") reasoning += event.text;
      if (event.type === "text") visibleText += event.text;
      if (event.type === "finish") finishReason ??= event.reason;
      if (event.type === "usage") usage = event.usage;
      out.push(...format.onEvent(event));
    }
    return out;
  }

  return {
    start,
    push(item: HubStreamItem): ClientEvent[] {
      if (ended) return [];
      return [...start(), ...handle(reader.push(item))];
    },
    finish(): ClientEvent[] {
      if (ended) return [];
      const out = [...start(), ...handle(reader.end())];
      ended = true;
      const toolCalls = reader.toolCalls();
      const answerFromReasoning = reasoningStandsIn(visibleText, toolCalls > 0, reasoning) ? reasoning : undefined;
      return [...out, ...format.closing({ finishReason, usage, toolCalls, answerFromReasoning })];
    },
    fail,
    keepAlive(): ClientEvent[] {
      if (ended) return [];
      const opening = start();
      return [...opening, ...format.keepAlive(opening.length > 0)];
    },
  };
}
