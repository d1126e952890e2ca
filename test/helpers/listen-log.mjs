// Loaded with `node --import` into a CLI child: appends to $GATEWAY_TEST_LISTEN_LOG a line for each server the
// process asks to listen (its arguments), so a test can tell that a command bound nothing.
import { appendFileSync } from "node:fs";
import { Server } from "node:net";

const listen = Server.prototype.listen;
Server.prototype.listen = function (...args) {
  appendFileSync(process.env.GATEWAY_TEST_LISTEN_LOG, `${JSON.stringify(args.filter((arg) => typeof arg !== "function"))}\n`);
  return listen.apply(this, args);
};
