import type { ReplySink } from "./sink.js";

/**
 * A streamed response's writes, one turn of the event loop at a time: the first write of a turn goes out at once,
 * what comes after it in the same turn goes out in one write at the turn's end (a microtask: no timer, and nothing
 * waits for a later read). undici hands over each HTTP chunk of an upstream read on its own, and an upstream sends
 * each event as a chunk, so a write for each was a write, framed and queued by Node, per event (twenty for the
 * bench's twenty-event read). Deferring the first write too cost less CPU still, but raised the gateway's peak memory
 * at 9,900 open streams from about 350 to 433 MB (buffers and heap held longer before collection). Passthrough sends
 * bytes through it (`relay-body.ts`), a translated stream its text (`event-stream-writer.ts`).
 */
export class TurnWrites<T extends string | Buffer> {
  readonly #sink: ReplySink;
  readonly #write: (piece: T) => void;
  readonly #join: (pieces: T[]) => T;
  /** What came after the first write of this turn. */
  #later: T[] = [];
  #turnStarted = false;
  readonly #endTurn = (): void => {
    this.#turnStarted = false;
    this.flush();
  };

  /** `write` puts a piece on the wire; `join` makes one piece of several. */
  constructor(sink: ReplySink, write: (piece: T) => void, join: (pieces: T[]) => T) {
    this.#sink = sink;
    this.#write = write;
    this.#join = join;
  }

  /** `piece` to the client: at once when it is the turn's first, else at the turn's end. False when the client's socket is full. */
  send(piece: T): boolean {
    if (this.#turnStarted) this.#later.push(piece);
    else {
      this.#turnStarted = true;
      queueMicrotask(this.#endTurn);
      this.#write(piece);
    }
    return !this.#sink.full;
  }

  /** What waits for the end of the turn, joined and taken now (a response's last write takes it along); undefined when nothing does. */
  take(): T | undefined {
    const pieces = this.#later;
    if (pieces.length === 0) return undefined;
    this.#later = [];
    return pieces.length === 1 ? pieces[0] : this.#join(pieces);
  }

  /** Writes what waits for the end of the turn now (before an error event ends the response). */
  flush(): void {
    const rest = this.take();
    if (rest !== undefined && !this.#sink.closed) this.#write(rest);
  }
}
