import { UsageError } from "../errors/index.js";
import { readStdin } from "./terminal.js";

/**
 * An upstream key from the person at the terminal, with hidden input, or from standard input (`--stdin`), trimmed;
 * never from an argument (SPEC section 8). The prompt library loads only when a question is asked.
 */
export async function askKey(stdin: boolean, message = "Upstream API key (input hidden):"): Promise<string> {
  if (stdin) return (await readStdin()).trim();
  if (!process.stdin.isTTY) {
    throw new UsageError("Cannot ask for the key: standard input is not a terminal.", { hint: "Pipe the key in with --stdin." });
  }
  const { default: password } = await import("@inquirer/password");
  return (await password({ message, mask: false })).trim();
}
