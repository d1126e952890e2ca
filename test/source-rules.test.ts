import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { FAMILY_NAMES } from "../src/formats/families.js";
import { FORMAT_NAMES } from "../src/formats/names.js";

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

/** The folders written once for every format (docs/ARCHITECTURE.md, One home per wire format): all but `formats/` and what it stands on. */
const FORMAT_BLIND = ["server", "upstream", "echo", "chat", "kinds", "pricing", "routing", "config", "cli"].map((folder) => join(SRC, folder));

/**
 * Where a feature is asked of one family by name, as `file: code`: SPEC 11 (What today's tools need) asks the
 * messages model list, and only it, to offer each `claude*` id a route names, for Claude Code's `/model` picker.
 */
const NAMED_EXCEPTIONS = ['routing/model-reach.ts: family === "messages"', 'cli/commands/models.ts: options.api === "messages"'];
const excepted = (found: string): boolean => NAMED_EXCEPTIONS.includes(found.replace(/:\d+:/, ":"));

const EQUALITY = new Set([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken]);

/** The types that name or are one format or family: comparing or switching on one is asking which format it is. */
const FORMAT_TYPES = new Set(["Format", "FamilyName", "WireFormat", "Family"]);
const NAMES: ReadonlySet<string> = new Set([...FORMAT_NAMES, ...FAMILY_NAMES]);

/**
 * Every place under `FORMAT_BLIND` that asks which format or family it has instead of asking the descriptor: an
 * `===`/`!==` of a format's or family's name or descriptor with a particular one, a `switch` on one, or an object
 * indexed by one, as `file:line: code`.
 */
function formatComparisons(): string[] {
  const files = FORMAT_BLIND.flatMap(sourceFiles);
  const program = ts.createProgram(files, { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true, types: [] });
  const checker = program.getTypeChecker();
  // Its type is one of them, or it is declared as one (`format?: Format`, whose type the checker widens to the names).
  const namesFormat = (node: ts.Expression): boolean => {
    // `(r.upstreamFormat ?? r.family)`: one of them, whichever it is.
    if (ts.isParenthesizedExpression(node)) return namesFormat(node.expression);
    if (ts.isBinaryExpression(node) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(node.operatorToken.kind)) return namesFormat(node.left) || namesFormat(node.right);
    const type = checker.getTypeAtLocation(node);
    if ([type, ...(type.isUnion() ? type.types : [])].some((part) => FORMAT_TYPES.has(part.aliasSymbol?.name ?? part.getSymbol()?.name ?? ""))) return true;
    // A union of names that lost its alias on the way (a `Pick<>` of a record): its literals are all formats' or families'.
    const literals = (type.isUnion() ? type.types : [type]).filter((part) => part.isStringLiteral()).map((part) => (part as ts.StringLiteralType).value);
    if (literals.length > 1 && literals.every((name) => NAMES.has(name))) return true;
    const named = ts.isPropertyAccessExpression(node) ? node.name : node;
    const declared = checker.getSymbolAtLocation(named)?.valueDeclaration as { type?: ts.TypeNode } | undefined;
    return declared?.type !== undefined && /\b(Format|FamilyName|WireFormat|Family)\b/.test(declared.type.getText());
  };
  // A particular format or family: a name written out (`"gemini"`), or a descriptor imported by name (`geminiFamily`).
  // Two values compared with each other (`shape === family`) ask nothing about which one either is.
  const isParticular = (node: ts.Expression): boolean =>
    ts.isStringLiteralLike(node) || ((checker.getSymbolAtLocation(node)?.flags ?? 0) & ts.SymbolFlags.Alias) !== 0;
  const found: string[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file)!;
    const visit = (node: ts.Node): void => {
      const comparison =
        ts.isBinaryExpression(node) &&
        EQUALITY.has(node.operatorToken.kind) &&
        ((namesFormat(node.left) && isParticular(node.right)) || (namesFormat(node.right) && isParticular(node.left)));
      const switched = ts.isSwitchStatement(node) && namesFormat(node.expression);
      const indexed = ts.isElementAccessExpression(node) && namesFormat(node.argumentExpression);
      if (comparison || switched || indexed) found.push(`${relative(SRC, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText().slice(0, 80)}`);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
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

  it("has no file outside formats/ that compares a format's or family's name, but the named exceptions: each asks the descriptor", () => {
    expect(FORMAT_BLIND.flatMap(sourceFiles).length).toBeGreaterThan(150);
    const found = formatComparisons();
    expect(found.filter((line) => !excepted(line))).toEqual([]);
    // An exception that no longer holds is struck, so the list says what is true.
    expect(NAMED_EXCEPTIONS.filter((exception) => !found.some((line) => excepted(line) && line.replace(/:\d+:/, ":") === exception))).toEqual([]);
  }, 60_000);
});
