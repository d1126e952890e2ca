import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every `get x()` / `set x()` written in an object literal, as `file:line`. */
function literalAccessors(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) && ts.isObjectLiteralExpression(node.parent)) {
      found.push(`${relative(SRC, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("source rules (docs/ARCHITECTURE.md, What costs on the request path)", () => {
  it("has no accessor in an object literal: per-request state with one is a class, other factories return methods", () => {
    // V8 gives each evaluation of such a literal a map of its own in the old generation, and that map keeps the
    // accessor's scope alive through every young-generation collection: a stream writer written so promoted its
    // whole request (about 9 KB a stream, 29 µs of scavenging each).
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(literalAccessors)).toEqual([]);
  });
});
