import type { RouteWhen } from "../config/index.js";
import type { ClientRequest } from "../request/client-request.js";
import type { ReasoningSeal } from "../translate/index.js";
import { globTest } from "../glob.js";

/** One condition of a rule (SPEC 11, Routes), as the router and the dry run ask it. */
export interface Condition {
  readonly key: keyof RouteWhen;
  /** The value the config gives it. */
  readonly value: string | number | boolean;
  /**
   * Whether it holds for a request whose model, after its alias, is `model`. A promise only for a token count that the
   * estimate's bounds leave open; a body that is not a format's JSON holds no body condition.
   */
  holds(request: ClientRequest, model: string | undefined): boolean | Promise<boolean>;
  /** What the request says on this point, in words, for the dry run (`claude-code (user agent "claude-cli/2.1.197")`). */
  seen(request: ClientRequest, model: string | undefined): string | Promise<string>;
}

const NOT_JSON = "nothing: the body is not a model call's JSON";
const quote = (text: string) => JSON.stringify(text);

/** A yes-or-no fact of the body: the condition holds when the fact is known and equals `value`. */
function flag(key: "image" | "thinking", value: boolean, ask: (request: ClientRequest) => boolean | undefined, yes: string, no: string): Condition {
  return {
    key,
    value,
    holds: (request) => ask(request) === value,
    seen(request) {
      const fact = ask(request);
      return fact === undefined ? NOT_JSON : fact ? yes : no;
    },
  };
}

/** The conditions a request is asked in this order: the cheapest first, the token estimate last. */
const ORDER: readonly (keyof RouteWhen)[] = ["format", "client", "model", "tag", "thinking", "tools", "image", "minInputTokens"];

/** The conditions of `when`, in the order they are asked. */
export function conditionsOf(when: RouteWhen, seal: ReasoningSeal, windowOf: WindowOf = () => undefined): Condition[] {
  return ORDER.flatMap((key) => {
    const value = when[key];
    return value === undefined ? [] : [condition(key, value, seal, windowOf)];
  });
}

/** The context window of a model (after its alias) as the upstream its id routes to knows it; undefined when unknown. */
export type WindowOf = (model: string) => number | undefined;

/**
 * `minInputTokens` (SPEC 11), a count or a share of the requested model's window (SPEC 12: a team catalog's window is
 * what it uses for a team model): the tokens it asks for, or undefined when it is a share of a window not known.
 */
function tokensAsked(value: number | string, model: string | undefined, windowOf: WindowOf): { min: number; window?: number } | undefined {
  if (typeof value === "number") return { min: value };
  const window = model === undefined ? undefined : windowOf(model);
  return window === undefined ? undefined : { min: Math.ceil((window * Number.parseInt(value, 10)) / 100), window };
}

function condition(key: keyof RouteWhen, value: string | number | boolean, seal: ReasoningSeal, windowOf: WindowOf): Condition {
  switch (key) {
    case "format":
      return {
        key,
        value,
        holds: (request) => request.endpoint.format?.name === value,
        seen: (request) => request.endpoint.format?.name ?? "none: the path is not a model call",
      };
    case "client": {
      const named = !String(value).includes("*");
      const test = globTest(String(value));
      return {
        key,
        value,
        holds(request) {
          if (named) return request.client() === value;
          const agent = request.headers["user-agent"];
          return agent !== undefined && test(agent);
        },
        seen(request) {
          const agent = request.headers["user-agent"];
          if (agent === undefined) return "no user agent";
          const client = request.client();
          return client ? `${client} (user agent ${quote(agent)})` : `user agent ${quote(agent)}`;
        },
      };
    }
    case "model": {
      const test = globTest(String(value));
      return {
        key,
        value,
        holds: (_request, model) => model !== undefined && test(model),
        seen: (request, model) => (model === undefined ? "no model named" : model === request.model ? model : `${model} (${request.model} after its alias)`),
      };
    }
    case "tag":
      return {
        key,
        value,
        holds: (request) => request.routeTag() === value,
        seen: (request) => {
          const tag = request.routeTag();
          return tag === undefined ? (request.json ? "no tag" : NOT_JSON) : `the tag ${quote(tag)}`;
        },
      };
    case "thinking":
      return flag(key, value as boolean, (request) => request.asksThinking(), "asks for reasoning", "asks for no reasoning");
    case "image":
      return flag(key, value as boolean, (request) => request.hasImage(), "holds an image", "holds no image");
    case "tools": {
      const test = globTest(String(value));
      return {
        key,
        value,
        holds: (request) => request.tools()?.some(test) === true,
        seen(request) {
          const tools = request.tools();
          if (tools === undefined) return NOT_JSON;
          return tools.length === 0 ? "declares no tools" : `declares ${tools.join(", ")}`;
        },
      };
    }
    case "minInputTokens":
      return {
        key,
        value,
        holds(request, model) {
          const asked = tokensAsked(value as number | string, model, windowOf);
          // A share of a window nobody knows holds for no request: the rule cannot say where its threshold is.
          return asked === undefined ? false : (request.inputTokensAtLeast(asked.min, seal) ?? false);
        },
        async seen(request, model) {
          const tokens = await request.inputTokens(seal);
          if (tokens === undefined) return NOT_JSON;
          const about = `about ${tokens.toLocaleString("en-US")} input tokens`;
          if (typeof value === "number") return about;
          const asked = tokensAsked(value as string, model, windowOf);
          if (!asked) return `${about}; the context window of ${model === undefined ? "the model (the request names none)" : quote(model)} is not known`;
          return `${about}, ${value} of ${quote(model!)}'s ${asked.window!.toLocaleString("en-US")}-token window is ${asked.min.toLocaleString("en-US")}`;
        },
      };
  }
}
