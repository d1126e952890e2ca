// Text put before a built file's code, its source map shifted to match: one `;` per added line, which maps to
// nothing, so the map keeps pointing at src/.
import { existsSync, readFileSync, writeFileSync } from "node:fs";

/** Puts `head` (whole lines, ending with a line break) before the code of the built file `file`. */
export function prependToOutput(file, head) {
  writeFileSync(file, head + readFileSync(file, "utf8"));
  const mapFile = `${file}.map`;
  if (!existsSync(mapFile)) return;
  const map = JSON.parse(readFileSync(mapFile, "utf8"));
  map.mappings = ";".repeat(head.split("\n").length - 1) + map.mappings;
  writeFileSync(mapFile, JSON.stringify(map));
}
