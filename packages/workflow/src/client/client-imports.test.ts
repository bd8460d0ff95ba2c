/**
 * `@bizdata/workflow/client` must load in a browser or an agent: its run-time import graph holds
 * only its own files — no server code, no drizzle, no database driver, not even a Node built-in.
 * Type-only imports (`import type`) are erased from the JavaScript and may name anything.
 */
import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/** the specifiers a module imports at run time (static, re-exported and dynamic) */
function runtimeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly) {
      found.push((node.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && !node.isTypeOnly) {
      found.push((node.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [specifier] = node.arguments;
      found.push(specifier && ts.isStringLiteral(specifier) ? specifier.text : "<computed>");
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** every module reached from `entry`, and every import that leaves them */
function importGraph(entry: string): { files: string[]; external: string[] } {
  const files = new Set<string>();
  const external = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of runtimeImports(file)) {
      if (specifier.startsWith(".")) pending.push(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
      else external.add(`${specifier} (from ${relative(import.meta.dirname, file)})`);
    }
  }
  return { files: [...files], external: [...external] };
}

describe("@bizdata/workflow/client", () => {
  it("imports nothing at run time but its own files", () => {
    const { files, external } = importGraph(resolve(import.meta.dirname, "index.ts"));
    expect(external).toEqual([]);
    for (const file of files) expect(relative(import.meta.dirname, file)).not.toMatch(/^\.\./);
    expect(files.length).toBeGreaterThan(5);
  });

  it("sees through type-only imports, and catches any other", () => {
    const probe = resolve(import.meta.dirname, "prompts.ts");
    expect(readFileSync(probe, "utf8")).toContain(
      'import type { Prompt, PromptEnvelope, PromptQuestion } from "@bizdata/core"',
    );
    expect(runtimeImports(probe)).toEqual(["./json.js"]);
    expect(runtimeImports(resolve(import.meta.dirname, "../server/workflow-prompts.ts"))).toContain("@bizdata/core");
  });
});
