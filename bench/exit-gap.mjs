// Loaded with `node --import` into a one-off `gateway chat` (bench/one-off.mjs): writes to $GATEWAY_TEST_EXIT_GAP how long after its last write to
// stdout the process reached its `exit` event, in ms: what a person at the terminal waits for after the reply.
import { writeFileSync } from "node:fs";

let last = performance.now();
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (...args) => {
  last = performance.now();
  return write(...args);
};
process.on("exit", () => writeFileSync(process.env.GATEWAY_TEST_EXIT_GAP, String(performance.now() - last)));
