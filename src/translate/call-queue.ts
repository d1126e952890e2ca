import { parsesAsObject } from "./tool-arguments.js";
import type { ClientEvent } from "./types.js";

/** A tool call of a stream: the hub reader's ordinal and its argument text so far. */
export interface QueuedCall {
  call: number;
  args: string;
}

/** How a client format shows a call as a block (a content block, an output item) of its own. */
export interface CallBlocks<C extends QueuedCall> {
  /** The call whose block is open, when the open block is a call's. */
  openCall(): C | undefined;
  /** Opens the call's block (nothing is open then), with the arguments it has so far. */
  open(call: C): ClientEvent[];
  /**
   * Closes whatever block is open (nothing when none is). `cut`: the reply was cut by the output limit, so a call
   * whose arguments do not parse never completed, and is closed as such (SPEC 10 rule 2).
   */
  close(cut?: boolean): ClientEvent[];
  /** A piece of the open call's arguments, already added to its `args`. */
  piece(text: string): ClientEvent[];
}

/**
 * Tool calls for a client format that takes one block at a time (messages, Responses). When a second call starts
 * while the open one's arguments are not a whole JSON object yet (an upstream that interleaves parallel calls), the
 * second waits, its pieces kept, and opens once the first is whole, or when anything else comes (`settle`); so no
 * argument piece ever belongs to a block already closed, and calls that come one after the other stream as they come.
 */
export function createCallQueue<C extends QueuedCall>(blocks: CallBlocks<C>) {
  const calls = new Map<number, C>();
  const waiting: C[] = [];

  /**
   * Closes the open block and then each waiting call's, in the order they started. When the reply was cut by the
   * output limit (`cut`), a waiting call whose arguments never completed is left out: its block never opened.
   */
  function settle(cut = false): ClientEvent[] {
    const out = blocks.close(cut);
    for (let call = waiting.shift(); call; call = waiting.shift()) if (!cut || parsesAsObject(call.args)) out.push(...blocks.open(call), ...blocks.close());
    return out;
  }

  /** Once the open call's arguments are whole, the next waiting call takes its place. */
  function promote(): ClientEvent[] {
    const out: ClientEvent[] = [];
    for (let open = blocks.openCall(); open && waiting.length > 0 && parsesAsObject(open.args); open = blocks.openCall()) {
      out.push(...blocks.close(), ...blocks.open(waiting.shift()!));
    }
    return out;
  }

  return {
    /** A call that started: its block opens now, after what was open closes, or it waits behind the open call. */
    start(call: C): ClientEvent[] {
      calls.set(call.call, call);
      const open = blocks.openCall();
      if (open && (waiting.length > 0 || !parsesAsObject(open.args))) {
        waiting.push(call);
        return [];
      }
      return [...settle(), ...blocks.open(call)];
    },
    /** A piece of a call's arguments: sent when its block is open; kept until it opens when it waits. */
    args(ordinal: number, text: string): ClientEvent[] {
      const call = calls.get(ordinal);
      if (!call) return [];
      call.args += text;
      return blocks.openCall() === call ? [...blocks.piece(text), ...promote()] : [];
    },
    settle,
  };
}
