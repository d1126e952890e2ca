/**
 * What OpenAI's validator (Python `re`) refuses in a tool schema's `pattern`, of the syntax SPEC 12 names: `\p`/`\P`,
 * `\u{`, lookaround, atomic groups and possessive quantifiers. Written apart from the gateway's scanner so that the
 * two can disagree; the `strict` helper's full fakes (test/helpers/strict/) replace it.
 */
const ESCAPES = [/\\[pP]/, /\\u\{/];
const CONSTRUCTS = [/\(\?<?[=!]/, /\(\?>/, /[*+?}]\+/];

/** Whether `re` refuses a pattern: its escapes anywhere, its constructs outside character classes (`[*+]` is literal). */
const refuses = (pattern: string): boolean => {
  const outsideClasses = pattern.replace(/\\./g, "_").replace(/\[[^\]]*\]/g, "_");
  return ESCAPES.some((rule) => rule.test(pattern)) || CONSTRUCTS.some((rule) => rule.test(outsideClasses));
};

/** Every `pattern` and `format` of a schema, as `<where>/<keyword>=<value>`. */
export function constraints(schema: unknown, at = ""): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item, i) => constraints(item, `${at}/${i}`));
  if (typeof schema !== "object" || schema === null) return [];
  return Object.entries(schema).flatMap(([key, value]) => [
    ...((key === "pattern" || key === "format") && typeof value === "string" ? [`${at}/${key}=${value}`] : []),
    ...constraints(value, `${at}/${key}`),
  ]);
}

/** The first pattern of a tool's parameters that OpenAI would refuse, or undefined. */
export function refusedPattern(parameters: unknown): string | undefined {
  return constraints(parameters)
    .filter((entry) => entry.includes("/pattern="))
    .find((entry) => refuses(entry.slice(entry.indexOf("=") + 1)));
}

/** OpenAI's answer to a chat request whose tools hold a pattern it refuses, or undefined when it takes them. */
export function openaiSchemaRefusal(body: Record<string, unknown> | undefined): { status: number; json: unknown } | undefined {
  const tools = (body?.tools ?? []) as { function: { name: string; parameters: unknown } }[];
  const bad = tools.find((tool) => refusedPattern(tool.function.parameters) !== undefined);
  if (!bad) return undefined;
  const message = `Invalid schema for function '${bad.function.name}': ${refusedPattern(bad.function.parameters)} is not a 'regex'.`;
  return { status: 400, json: { error: { message, type: "invalid_request_error", param: "tools[0].function.parameters", code: "invalid_function_parameters" } } };
}
