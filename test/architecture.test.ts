import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * docs/ARCHITECTURE.md against the code: the request path's numbered steps each name a file that carries its number
 * in a comment, no comment carries a number the page gives to another file, and the folder table has one row for
 * each folder of `src/` and `ui/`, and none for a folder that is gone.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SRC = join(ROOT, "src");
const page = readFileSync(join(ROOT, "docs", "ARCHITECTURE.md"), "utf8");
const section = (heading: string): string => {
  const at = page.indexOf(`\n${heading}\n`);
  expect(at, heading).toBeGreaterThanOrEqual(0);
  const end = page.indexOf("\n## ", at + heading.length + 2);
  return page.slice(at, end === -1 ? undefined : end);
};

interface Step {
  n: number;
  name: string;
  /** Every file the step's line names, from `src/`. */
  files: string[];
}

const steps: Step[] = [...section("## One request").matchAll(/^(\d+)\. \*\*(.+?)\*\* (.*)$/gm)].map(([, n, name, rest]) => ({
  n: Number(n),
  name: name!,
  files: [...rest!.matchAll(/`([\w/.-]+\.ts)`/g)].map(([, path]) => path!),
}));

/** Every `.ts` file under `dir`, as a path from `src/`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [relative(SRC, path)] : [];
  });
}

describe("docs/ARCHITECTURE.md's request path", () => {
  it("is a numbered list from 1, each step naming files that exist, and the details below in the same order", () => {
    expect(steps.map((step) => step.n)).toEqual(steps.map((_, i) => i + 1));
    expect(steps.length).toBeGreaterThanOrEqual(8);
    for (const step of steps) {
      expect(step.files.length, step.name).toBeGreaterThan(0);
      for (const file of step.files) expect(existsSync(join(SRC, file)), file).toBe(true);
    }
    const details = [...section("## One request").matchAll(/^\*\*(\d+)\. (.+?)\.\*\*/gm)].map(([, n, name]) => `${n}. ${name!.toLowerCase()}`);
    expect(details).toEqual(steps.map((step) => `${step.n}. ${step.name}`));
  });

  it("has its number in a comment of the step's own file, and no comment numbers a file the step does not name", () => {
    for (const step of steps) {
      expect(readFileSync(join(SRC, step.files[0]!), "utf8"), step.files[0]).toContain(`Step ${step.n} of the request path (docs/ARCHITECTURE.md)`);
    }
    for (const file of sources(SRC)) {
      const text = readFileSync(join(SRC, file), "utf8");
      for (const [, n] of text.matchAll(/Step (\d+) of the request path/g)) expect(steps[Number(n) - 1]?.files, `${file}: Step ${n}`).toContain(file);
      for (const [, from, to] of text.matchAll(/Steps (\d+) to (\d+) of the request path/g)) {
        expect(Number(from), file).toBeGreaterThanOrEqual(1);
        expect(Number(to), file).toBeLessThanOrEqual(steps.length);
      }
      // the numbering before this list: "Stage 5" would now name another step
      expect(text, file).not.toMatch(/\bStages? \d/);
    }
  });
});

describe("docs/ARCHITECTURE.md's folder table", () => {
  const rows = [...section("## Folders").matchAll(/^\| `([^`]+)`[^|]*\| (.*) \|$/gm)].map(([, folder]) => folder!);

  it("has one row for each folder of src/ and ui/ (the formats' folders as one), and no row for a folder that is gone", () => {
    const folders = (dir: string, depth: number): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .flatMap((entry) => {
          const path = `${dir}/${entry.name}`;
          return [`${path}/`, ...(depth > 1 ? folders(path, depth - 1) : [])];
        });
    const formats = readdirSync(join(SRC, "formats"), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => `src/formats/${entry.name}/`);
    const expected = ["src/", "ui/", ...folders("src", 2).filter((folder) => !formats.includes(folder)), "src/formats/<format>/"];
    expect([...rows].sort()).toEqual(expected.sort());
  });
});
