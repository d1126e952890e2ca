import * as v from "valibot";
import { KIND_NAMES, KINDS, type KindName } from "../../kinds/index.js";
import { closest } from "../closest.js";

const KNOWN = KIND_NAMES.map((name) => `"${name}"`).join(", ");

/** `kind` (SPEC 11, Kinds): one of the kinds; an unknown one is refused naming the closest. */
export const kind = v.pipe(
  v.string(`one of ${KNOWN}`),
  v.check(
    (name): name is KindName => (KIND_NAMES as readonly string[]).includes(name),
    (issue) => {
      const near = closest(String(issue.input), KIND_NAMES);
      return near ? `one of ${KNOWN} (did you mean "${near}"?)` : `one of ${KNOWN}`;
    },
  ),
  v.transform((name) => name as KindName),
);

/** The kinds that name a usual address, for the message of an entry without a `url`. */
const WITH_URL = KIND_NAMES.filter((name) => KINDS[name].defaults.url !== undefined).join(", ");

/**
 * What an entry without a `url` is told: the kind it names has no usual address (LiteLLM, generic), or it names
 * no kind. `url` may be left out only where the kind supplies one.
 */
export function urlRequired(name: KindName | undefined): string {
  if (name === undefined) return `set: it is required unless "kind" names a server with a usual address (${WITH_URL})`;
  return `set: a ${name} upstream has no usual address, so give its base URL (e.g. "http://localhost:4000")`;
}
