/**
 * Layout check: the rules that keep the tree shaped as STYLE.md draws it, read
 * from the syntax of every .ts/.tsx file under src/ and workers/ (no type
 * checker, so it runs in a second on the whole tree):
 *   1. PostgreSQL packages are imported only in the folders that own an engine.
 *   2. The top-level parts of src/ import each other without a cycle.
 *   3. No function is longer than MAX_FUNCTION_LINES.
 *   4. No interface or object type has more than MAX_TYPE_MEMBERS members.
 * Usage: tsx scripts/check-layout.ts [rootDir]  (rootDir: the project root by
 * default). Prints `path:line: message` per violation, sorted, and exits 1; or
 * one OK line and exits 0. The pieces are exported for the tests.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildPartGraph, checkCycles } from './layout/part-cycles.ts';
import { checkPostgresImports, postgresPackageOf } from './layout/postgres-imports.ts';
import { checkFunctionLengths, checkTypeSizes } from './layout/sizes.ts';
import {
  collectImports,
  listSourceFiles,
  MAX_FUNCTION_LINES,
  MAX_TYPE_MEMBERS,
  parseFile,
  SOURCE_DIRS,
  type ImportRef,
  type LayoutReport,
  type LayoutStats,
  type ParsedFile,
  type Violation,
} from './layout/source-files.ts';

export * from './layout/part-cycles.ts';
export * from './layout/postgres-imports.ts';
export * from './layout/sizes.ts';
export * from './layout/source-files.ts';

export function compareViolations(a: Violation, b: Violation): number {
  return a.file.localeCompare(b.file) || a.line - b.line || a.message.localeCompare(b.message);
}

export function formatViolation(violation: Violation): string {
  return `${violation.file}:${violation.line}: ${violation.message}`;
}

export function analyzeLayout(root: string): LayoutReport {
  const files = listSourceFiles(root).map((path) => parseFile(root, path));
  const imports = new Map(files.map((file) => [file, collectImports(file.source)] as const));
  const importsOf = (file: ParsedFile): readonly ImportRef[] => imports.get(file) ?? [];
  const graph = buildPartGraph(files, importsOf);
  const violations: Violation[] = checkCycles(graph);
  const stats: LayoutStats = { files: files.length, parts: graph.size, edges: 0, postgresImports: 0, functions: 0, typeShapes: 0 };
  for (const edges of graph.values()) stats.edges += edges.size;
  for (const file of files) {
    stats.postgresImports += importsOf(file).filter((ref) => postgresPackageOf(ref.specifier)).length;
    violations.push(...checkPostgresImports(file, importsOf(file)));
    const lengths = checkFunctionLengths(file);
    stats.functions += lengths.functions;
    violations.push(...lengths.violations);
    const sizes = checkTypeSizes(file);
    stats.typeShapes += sizes.typeShapes;
    violations.push(...sizes.violations);
  }
  return { violations: violations.sort(compareViolations), stats };
}

export function checkLayout(root: string): Violation[] {
  return analyzeLayout(root).violations;
}

export function summarize(stats: LayoutStats): string {
  return (
    `check-layout: OK: ${stats.files} files read; ${stats.postgresImports} PostgreSQL imports, all in their folders; ` +
    `${stats.parts} parts of src/ with ${stats.edges} import edges, no cycle; ` +
    `${stats.functions} functions of at most ${MAX_FUNCTION_LINES} lines; ` +
    `${stats.typeShapes} interfaces and object types of at most ${MAX_TYPE_MEMBERS} members`
  );
}

export function main(argv: readonly string[]): number {
  const root = resolve(argv[0] ?? resolve(dirname(fileURLToPath(import.meta.url)), '..'));
  // A mistyped rootDir would otherwise read no file and pass.
  if (!SOURCE_DIRS.some((dir) => existsSync(resolve(root, dir)))) {
    console.error(`check-layout: ${root} has neither ${SOURCE_DIRS.join('/ nor ')}/`);
    return 2;
  }
  const report = analyzeLayout(root);
  if (report.violations.length === 0) {
    console.log(summarize(report.stats));
    return 0;
  }
  for (const violation of report.violations) console.log(formatViolation(violation));
  return 1;
}

function isEntry(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}

if (isEntry()) process.exitCode = main(process.argv.slice(2));
