import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

/**
 * Issue 52 item 4: the build bundles gpt-tokenizer's o200k_base encoding into dist/translate/o200k-tokenizer.js
 * (scripts/build-cli.mjs, its license from scripts/bundled-licenses.mjs), so the package needs nothing else of gpt-tokenizer's 30 MB. The bundle counts what
 * the package counts, on a corpus of the repository's own prose, JSON and code and on hard cases, and loads nothing
 * from node_modules.
 */
const ROOT = new URL("..", import.meta.url).pathname;
const BUNDLE = join(ROOT, "dist/translate/o200k-tokenizer.js");
const AS_TEXT = { disallowedSpecial: new Set<string>() };

const corpus = (): string[] => [
  readFileSync(join(ROOT, "README.md"), "utf8"),
  ...readdirSync(join(ROOT, "docs")).filter((name) => name.endsWith(".md")).map((name) => readFileSync(join(ROOT, "docs", name), "utf8")),
  readFileSync(join(ROOT, "test/tools.json"), "utf8"),
  readFileSync(join(ROOT, "src/translate/count-tokens.ts"), "utf8"),
  "こんにちは世界、これはテストです。中文分词也要一样。",
  "emoji 👩‍👩‍👧‍👦 and flags 🇺🇦🇯🇵, combining é vs é",
  "a special-token look-alike <|endoftext|> counted as text",
  "x".repeat(5000),
];

describe("the bundled o200k_base tokenizer", () => {
  it("counts every text of the corpus as gpt-tokenizer does", async () => {
    const bundled = (await import(BUNDLE)) as { countTokens: typeof countTokens };
    for (const text of corpus()) expect(bundled.countTokens(text, AS_TEXT), text.slice(0, 60)).toBe(countTokens(text, AS_TEXT));
  });

  it("imports nothing: the encoding's code and data are in the file, under gpt-tokenizer's license", () => {
    const text = readFileSync(BUNDLE, "utf8");
    // esbuild writes an import left in the bundle as `from"<specifier>"`: none names a file or a package.
    expect(/\bfrom\s*"(?:\.{0,2}\/|gpt-tokenizer|node:)|\bimport\s*\(\s*"|\brequire\s*\(\s*"/.test(text)).toBe(false);
    expect(text.startsWith("/*! Bundled packages: gpt-tokenizer ")).toBe(true);
    expect(text).toContain("MIT License");
  });
});
