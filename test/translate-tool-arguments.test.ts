import { describe, expect, it } from "vitest";
import { ArgumentWriter, readToolArguments } from "../src/translate/tool-arguments.js";

/**
 * Issue 37 items 2 and 3: one rule for tool-call arguments in every client format, whole and streamed. Unambiguous
 * repairs only; anything else reaches the client as the raw text under INVALID_JSON, never invented keys or values.
 */

const repaired: [what: string, text: string, object: Record<string, unknown>][] = [
  ["valid JSON", '{"command":"ls -la","n":1}', { command: "ls -la", n: 1 }],
  ["no arguments at all", "", {}],
  ["white space alone", " \n", {}],
  ["an object cut only of its closing brace", '{"command": "ls -la"', { command: "ls -la" }],
  ["nested brackets cut at the end, after a complete value", '{"a": {"b": [1, 2', { a: { b: [1, 2] } }],
  ["a number at the very end", '{"n": 12', { n: 12 }],
  ["a trailing comma before the brace", '{"path":"a",}', { path: "a" }],
  ["a trailing comma in an array", '{"p":[1,2,],}', { p: [1, 2] }],
  ["a trailing comma at the very end", '{"path": "a",', { path: "a" }],
  ["a Markdown fence around the whole", '```json\n{"path": "a"}\n```', { path: "a" }],
  ["a fence without its language, and white space around", '  ```\n{"path": "a"}\n```  \n', { path: "a" }],
  ["raw newlines and tabs in a string (Qwen's apply_patch)", '{"input": "*** Begin Patch\n\t*** End Patch\n"}', { input: "*** Begin Patch\n\t*** End Patch\n" }],
  ["escapes kept as they are", '{"s": "a\\"b\\\\c\\u00e9\\n"}', { s: 'a"b\\cé\n' }],
];

const invalid: [what: string, text: string][] = [
  ["text that is not JSON (item 2)", "{not json"],
  ["plain words", "ls -la"],
  ["an array (item 3)", "[1,2]"],
  ["a string (item 3)", '"x"'],
  ["a number (item 3)", "3"],
  ["null", "null"],
  ["single quotes", "{'command': 'pwd'}"],
  ["Python literals", '{"force": True}'],
  ["a key without a value", '{"command":'],
  ["a key cut short", '{"comm'],
  ["a string cut short", '{"command": "ls -'],
  ["a literal cut short", '{"force": tr'],
  ["an unknown escape", '{"s": "it\\\'s"}'],
  ["text after the object", '{"a": 1} and more'],
  ["two objects", '{"a": 1}{"b": 2}'],
  ["a closing bracket too many", '{"a": 1}}'],
  ["a fence and nothing in it", "```json\n```"],
  ["a number that is not one", '{"n": 1.}'],
];

/** Everything a writer sends for `text` cut into `pieces`, completed. */
function written(pieces: string[]): string {
  const writer = new ArgumentWriter();
  return pieces.map((piece) => writer.push(piece)).join("") + writer.end(pieces.join(""));
}

describe("readToolArguments: arguments of a whole reply", () => {
  it.each(repaired)("%s is the object it is, or unambiguously repairs to", (_what, text, object) => {
    expect(readToolArguments(text).object).toEqual(object);
    expect(JSON.parse(readToolArguments(text).json)).toEqual(object);
  });

  it.each(invalid)("%s is the raw text under INVALID_JSON, nothing else", (_what, text) => {
    expect(readToolArguments(text)).toEqual({ object: { INVALID_JSON: text }, json: JSON.stringify({ INVALID_JSON: text }) });
  });

  it("keeps valid arguments byte for byte, and takes an object as it is (zai-proxy)", () => {
    expect(readToolArguments('{ "b": 1, "a": 2 }').json).toBe('{ "b": 1, "a": 2 }');
    expect(readToolArguments({ a: 1 })).toEqual({ object: { a: 1 }, json: '{"a":1}' });
  });
});

describe("ArgumentWriter: arguments streamed as pieces that cannot be taken back (a messages stream)", () => {
  const cases = [...repaired.map(([what, text]) => [what, text] as const), ...invalid];

  it.each(cases)("%s: the pieces join into one object whatever the cuts, at every offset and one character at a time", (_what, text) => {
    const whole = written([text]);
    expect(JSON.parse(whole)).toBeTypeOf("object");
    for (let cut = 0; cut <= text.length; cut++) expect(written([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toBe(whole);
    expect(written([...text])).toBe(whole);
  });

  it.each(repaired)("%s: the pieces join into what a whole reply gets", (_what, text, object) => {
    expect(JSON.parse(written([text]))).toEqual(object);
  });

  it.each(invalid.filter(([, text]) => !text.trimStart().startsWith("{")))("%s: nothing went out, so the object is the raw text under INVALID_JSON alone", (_what, text) => {
    expect(JSON.parse(written([text]))).toEqual({ INVALID_JSON: text });
  });

  it("after a valid start, closes what went out and puts the whole text beside it: nothing invented, the truth in INVALID_JSON", () => {
    expect(JSON.parse(written(['{"command": "ls", "force": True}']))).toEqual({ command: "ls", INVALID_JSON: '{"command": "ls", "force": True}' });
    expect(JSON.parse(written(['{"command": "ls -']))).toEqual({ command: "ls -", INVALID_JSON: '{"command": "ls -' });
    expect(JSON.parse(written(['{"a": {"b": [1, tr']))).toEqual({ a: { b: [1] }, INVALID_JSON: '{"a": {"b": [1, tr' });
    expect(JSON.parse(written(['{"a": 1}}']))).toEqual({ a: 1, INVALID_JSON: '{"a": 1}}' });
    expect(JSON.parse(written(['{"command":']))).toEqual({ INVALID_JSON: '{"command":' });
    expect(JSON.parse(written(["{not json"]))).toEqual({ INVALID_JSON: "{not json" });
  });

  it("every prefix of real arguments (a cut anywhere) gives pieces that join into an object, the same however they are cut", () => {
    const samples = [
      JSON.stringify({ command: "ls -la", description: "List \"files\"\n", timeout: 1.5e3, flags: [true, false, null, -2], env: { A: "é😀" } }),
      '```json\n{"path": "a", "n": [1, {"x": ""}]}\n```',
    ];
    for (const sample of samples) {
      for (let end = 0; end <= sample.length; end++) {
        const text = sample.slice(0, end);
        const whole = written([text]);
        const object = JSON.parse(whole) as Record<string, unknown>;
        if (object.INVALID_JSON !== undefined) expect(object.INVALID_JSON, text).toBe(text);
        expect(written([text.slice(0, end >> 1), text.slice(end >> 1)]), text).toBe(whole);
        expect(readToolArguments(text).object, text).toEqual(object.INVALID_JSON === undefined ? object : { INVALID_JSON: text });
      }
    }
  });

  it("lets a string value through as it comes, holding back only a key before its value and the closing brace", () => {
    const writer = new ArgumentWriter();
    expect(writer.push('{"content": "')).toBe('{"content": "');
    expect(writer.push("x".repeat(10_000))).toBe("x".repeat(10_000));
    expect(writer.push('line\n", "mode')).toBe('line\\n"');
    expect(writer.push('": 1')).toBe("");
    expect(writer.push("}")).toBe(', "mode": 1');
    expect(writer.end("")).toBe("}");
  });

  it("gives what it held back, as it came, for a call cut by the output limit", () => {
    const writer = new ArgumentWriter();
    expect(writer.push('{"a": 1, "b')).toBe('{"a": 1');
    expect(writer.held()).toBe(', "b');
  });
});
