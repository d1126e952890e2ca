import { Readable } from "node:stream";

/**
 * From this size a body is handed to undici as a stream that lets go of its bytes once they are written: undici's
 * `Request` keeps the body it was given until the reply's last byte (nodejs/undici `lib/core/request.js` sets
 * `this.body` once; `lib/dispatcher/client-h1.js` frees the request's queue slot when the response completes), so a
 * long conversation's 2.5-3 MB would live as long as its streamed reply, minutes for a long answer (issue 53: what a
 * request holds to the end of its reply). Below it the stream's own cost outweighs what it frees.
 */
export const SENT_ONCE_FROM = 1024 * 1024;

/** `bytes` as a stream of one chunk that holds them only until undici has read them; one stream per attempt. */
export function sentOnce(bytes: Buffer): Readable {
  let held: Buffer | undefined = bytes;
  return new Readable({
    read() {
      const chunk = held;
      held = undefined;
      if (chunk) this.push(chunk);
      this.push(null);
    },
  });
}
