/**
 * What the layout check reads: the .ts/.tsx files under src/ and workers/,
 * parsed without a type checker, and every module specifier each writes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { posix, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The only folders that may import a PostgreSQL package: the datasource driver
 * (the engine Sluice queries) and the catalog's PostgreSQL driver (where it
 * keeps its own records). Everything else reaches PostgreSQL through their
 * contracts, so a second engine or catalog never has to be threaded through it.
 */
export const POSTGRES_ALLOWED_PREFIXES = ['src/datasources/postgres/', 'src/catalog/postgres/'] as const;

/**
 * The PostgreSQL packages Sluice installs: node-postgres (its one client) with
 * its protocol, cursor and COPY packages, the SQL parser, PGlite. Matched by
 * exact name or name + '/': `postgres-array` is another package.
 */
export const POSTGRES_PACKAGES = [
  'pg',
  'pg-cursor',
  'pg-copy-streams',
  'pg-protocol',
  'libpg-query',
  '@electric-sql/pglite',
  '@electric-sql/pglite-socket',
] as const;

export const SOURCE_DIRS = ['src', 'workers'] as const;
export const MAX_FUNCTION_LINES = 100;
export const MAX_TYPE_MEMBERS = 20;

export interface Violation {
  /** Relative to the root, with '/' separators. */
  file: string;
  /** 1-based. */
  line: number;
  message: string;
}

export interface ParsedFile {
  /** Relative to the root, with '/' separators. */
  path: string;
  source: ts.SourceFile;
}

/** A module specifier written as a literal, wherever it loads or names a module. */
export interface ImportRef {
  specifier: string;
  line: number;
}

export interface LayoutStats {
  files: number;
  parts: number;
  edges: number;
  postgresImports: number;
  functions: number;
  typeShapes: number;
}

export interface LayoutReport {
  violations: Violation[];
  stats: LayoutStats;
}

/** Every .ts/.tsx file under <root>/src and <root>/workers, relative and sorted. */
export function listSourceFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(resolve(root, rel), { withFileTypes: true })) {
      const child = posix.join(rel, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile() && /\.tsx?$/.test(entry.name)) found.push(child);
    }
  };
  for (const dir of SOURCE_DIRS) if (existsSync(resolve(root, dir))) walk(dir);
  return found.sort();
}

export function parseFile(root: string, path: string): ParsedFile {
  const text = readFileSync(resolve(root, path), 'utf8');
  const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  // Parent pointers: an arrow function is named after the variable it is assigned to.
  return { path, source: ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind) };
}

export function lineOf(source: ts.SourceFile, node: ts.Node): number {
  return source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
}

/**
 * Static imports (type-only too), re-exports, `import x = require()`,
 * `import()` with a literal, `require()` with a literal, and `import('x').T`
 * in a type: each a way for a file to depend on a module.
 */
export function collectImports(source: ts.SourceFile): ImportRef[] {
  const refs: ImportRef[] = [];
  const add = (literal: ts.Node | undefined, at: ts.Node): void => {
    if (literal && ts.isStringLiteralLike(literal)) refs.push({ specifier: literal.text, line: lineOf(source, at) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier, node);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node);
    } else if (ts.isCallExpression(node) && isModuleCall(node)) add(node.arguments[0], node);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal, node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return refs;
}

function isModuleCall(call: ts.CallExpression): boolean {
  if (call.expression.kind === ts.SyntaxKind.ImportKeyword) return true;
  return ts.isIdentifier(call.expression) && call.expression.text === 'require' && call.arguments.length === 1;
}
