/**
 * The back-pressure of a reply sink that is not node:http (the WebSocket's messages, a one-off chat's terminal): the
 * bytes written and not yet taken, `full` above node:http's default high-water mark, and the drain listeners, told
 * when a take brings it back under.
 */
export class UnsentBytes {
  static readonly HIGH_WATER = 16 * 1024;
  #bytes = 0;
  readonly #drains = new Set<() => void>();

  get full(): boolean {
    return this.#bytes > UnsentBytes.HIGH_WATER;
  }

  added(bytes: number): void {
    this.#bytes += bytes;
  }

  taken(bytes: number): void {
    const wasFull = this.full;
    this.#bytes -= bytes;
    if (wasFull && !this.full) for (const listener of [...this.#drains]) listener();
  }

  onDrain(listener: () => void): void {
    this.#drains.add(listener);
  }

  offDrain(listener: () => void): void {
    this.#drains.delete(listener);
  }
}
