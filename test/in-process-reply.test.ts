import { describe, expect, it } from "vitest";
import { InProcessReply } from "../src/chat/in-process-reply.js";

/** A one-off chat's reply sink holds back the reply layer as node:http does: full past 16 KB unread, drained on read. */
describe("a one-off chat's reply sink", () => {
  it("is full while more than 16 KB wait unread, and tells each drain listener once the reader takes them", async () => {
    const sink = new InProcessReply();
    let drains = 0;
    const listener = () => drains++;
    sink.onDrain(listener);
    sink.head(200, { "Content-Type": "text/event-stream" });
    expect(sink.write(Buffer.alloc(16 * 1024))).toBe(true);
    expect(sink.write(Buffer.alloc(1))).toBe(false);
    expect(sink.full).toBe(true);
    sink.end();
    const reply = await sink.reply;
    expect(reply.headers["content-type"]).toBe("text/event-stream");
    const read: number[] = [];
    for await (const chunk of reply.body) read.push(chunk.length);
    expect(read).toEqual([16 * 1024, 1]);
    expect(sink.full).toBe(false);
    expect(drains).toBe(1);
    sink.offDrain(listener);
  });
});
