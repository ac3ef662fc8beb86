/**
 * The layout check on small fixture trees: each rule reports what breaks it
 * and nothing that keeps it. Every case holds a breaking file next to the
 * keeping ones, so a rule that stopped firing fails its test too.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';
import { buildPartGraph, checkLayout, collectImports, cyclesToReport, formatViolation, type ParsedFile } from '../../scripts/check-layout.ts';

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCRIPT = join(PROJECT, 'scripts/check-layout.ts');
const roots: string[] = [];

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A temporary project root holding `files` (path relative to the root → text). */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'sluice-check-layout-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function lines(root: string): string[] {
  return checkLayout(root).map(formatViolation);
}

/** `count` lines in all: the opening line, count - 2 statements, the closing line. */
function body(open: string, count: number, close = '}'): string {
  const statements = Array.from({ length: count - 2 }, (_, i) => `  void ${i};`);
  return [open, ...statements, close].join('\n');
}

function members(count: number): string {
  return Array.from({ length: count }, (_, i) => `  m${i}: string;`).join('\n');
}

describe('rule 1: PostgreSQL packages stay in their folders', () => {
  const EVERY_FORM = [
    "import pg from 'pg';",
    "import type { Client } from 'pg';",
    "export { Pool } from 'pg';",
    "import legacy = require('pg');",
    "const lazy = await import('pg');",
    'const lazyTemplate = await import(`pg`);',
    "const required = require('pg');",
    "import utils from 'pg/lib/utils';",
    "import { vector } from '@electric-sql/pglite/vector';",
    "type Typed = import('pg').Client;",
  ].join('\n');
  const NOT_POSTGRES = "import parse from 'postgres-array';\nimport x from 'pgx-foo';\nimport y from 'pg-cursorish';\n";

  it('reports every form of import outside the allowed folders, with the package named', () => {
    const root = tree({ 'src/query/run.ts': EVERY_FORM, 'workers/w.ts': "import { to } from 'pg-copy-streams';" });
    const outside = 'outside src/datasources/postgres/ and src/catalog/postgres/';
    expect(lines(root)).toEqual([
      `src/query/run.ts:1: imports PostgreSQL package 'pg' ${outside}`,
      `src/query/run.ts:2: imports PostgreSQL package 'pg' ${outside}`,
      `src/query/run.ts:3: imports PostgreSQL package 'pg' ${outside}`,
      `src/query/run.ts:4: imports PostgreSQL package 'pg' ${outside}`,
      `src/query/run.ts:5: imports PostgreSQL package 'pg' ${outside}`,
      `src/query/run.ts:6: imports PostgreSQL package 'pg' ${outside}`,
      `src/query/run.ts:7: imports PostgreSQL package 'pg' ${outside}`,
      `src/query/run.ts:8: imports PostgreSQL package 'pg/lib/utils' (package pg) ${outside}`,
      `src/query/run.ts:9: imports PostgreSQL package '@electric-sql/pglite/vector' (package @electric-sql/pglite) ${outside}`,
      `src/query/run.ts:10: imports PostgreSQL package 'pg' ${outside}`,
      `workers/w.ts:1: imports PostgreSQL package 'pg-copy-streams' ${outside}`,
    ]);
  });

  it('allows them in src/datasources/postgres/ and src/catalog/postgres/, and does not count look-alike packages', () => {
    const root = tree({
      'src/datasources/postgres/driver.ts': EVERY_FORM,
      'src/catalog/postgres/records.ts': EVERY_FORM,
      'src/datasources/postgres-notes.ts': NOT_POSTGRES,
      'src/query/arrays.ts': NOT_POSTGRES,
      'src/query/leak.ts': "import Cursor from 'pg-cursor';",
    });
    expect(lines(root)).toEqual([
      "src/query/leak.ts:1: imports PostgreSQL package 'pg-cursor' outside src/datasources/postgres/ and src/catalog/postgres/",
    ]);
  });
});

describe('rule 2: no cycle between the top-level parts of src/', () => {
  it('reports a two-folder cycle with one example import per edge, resolving .js written for .ts', () => {
    const root = tree({
      'src/query/plan.ts': "import { x } from './own.ts';\nimport { run } from '../datasources/registry.js';\n",
      'src/query/own.ts': 'export const x = 1;',
      'src/query/types.ts': 'export type Plan = string;',
      'src/datasources/registry.ts': "\n\nimport type { Plan } from '../query/types.ts';\nexport const run = 1;\n",
    });
    expect(lines(root)).toEqual([
      'src/datasources/registry.ts:3: import cycle between parts of src/: datasources → query → datasources; ' +
        'src/datasources/registry.ts:3 → src/query/types.ts; src/query/plan.ts:2 → src/datasources/registry.ts',
    ]);
  });

  it('reports a cycle through a file directly in src/, reached through a directory index', () => {
    const root = tree({
      'src/config.ts': "export { plan } from './query';\n",
      'src/query/index.ts': "export const plan = async () => import('./plan.ts');\n",
      'src/query/plan.ts': "import type { Config } from '../config.ts';\nexport type P = Config;\n",
    });
    expect(lines(root)).toEqual([
      'src/config.ts:1: import cycle between parts of src/: config.ts → query → config.ts; ' +
        'src/config.ts:1 → src/query/index.ts; src/query/plan.ts:1 → src/config.ts',
    ]);
  });

  it('stays quiet while edges go one way, and reports the one back edge that closes them, dynamic import included', () => {
    const files = {
      'src/index.ts': "import './app.ts';\n",
      'src/app.ts': "import { route } from './routes/area/routes.ts';\n",
      'src/routes/area/routes.ts': "import { q } from '../../query/service.ts';\nexport const route = q;\n",
      'src/query/service.ts': "export * from '../artifacts/store.ts';\nexport const q = 1;\n",
      'src/artifacts/store.ts': 'export const s = 1;\n',
      'workers/entry.ts': "import '../src/query/service.ts';\nimport '../src/app.ts';\n",
      'src/artifacts/cursor.ts': "import '../../workers/entry.ts';\n",
    };
    expect(lines(tree(files))).toEqual([]);
    const closed = tree({ ...files, 'src/artifacts/late.ts': "export const late = () => import('../routes/area/routes.ts');\n" });
    expect(lines(closed)).toEqual([
      'src/artifacts/late.ts:1: import cycle between parts of src/: artifacts → routes → query → artifacts; ' +
        'src/artifacts/late.ts:1 → src/routes/area/routes.ts; src/routes/area/routes.ts:1 → src/query/service.ts; ' +
        'src/query/service.ts:1 → src/artifacts/store.ts',
    ]);
  });

  it('reports a few shortest cycles that cover a dense component, not every cycle in it', () => {
    // Every part imports every other: 4 parts hold 20 simple cycles.
    const parts = ['a', 'b', 'c', 'd'];
    const files = Object.fromEntries(
      parts.map((part) => [`src/${part}/m.ts`, parts.filter((p) => p !== part).map((p) => `import '../${p}/m.ts';`).join('\n')]),
    );
    const root = tree(files);
    const parsed: ParsedFile[] = Object.entries(files).map(([path, text]) => ({ path, source: ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true) }));
    const graph = buildPartGraph(parsed, (file) => collectImports(file.source));
    expect(cyclesToReport(graph)).toEqual([
      ['a', 'b'],
      ['a', 'c'],
      ['a', 'd'],
    ]);
    expect(lines(root)).toHaveLength(3);
    expect(lines(root)[0]).toContain('a → b → a (one cycle of the component a, b, c, d)');
  });
});

describe('rule 3: no function over 100 lines', () => {
  it('reports 101-line functions, arrows, methods and callbacks by name, and not 100-line ones', () => {
    const root = tree({
      'src/query/long.ts': [
        '/**\n * A comment above is not the function.\n */',
        body('export function declared() {', 101),
        body('function kept() {', 100),
        body('const arrow = async () => {', 101, '};'),
        body('const keptArrow = () => {', 100, '};'),
        'class Reader {',
        body('  method(): void {', 101, '  }'),
        body('  keptMethod(): void {', 100, '  }'),
        body('  constructor() {', 101, '  }'),
        '}',
        body('[1].map(function () {', 101, '});'),
        body('export const handlers = { onRow: (row: number) => {', 101, '} };'),
      ].join('\n'),
    });
    expect(lines(root)).toEqual([
      'src/query/long.ts:4: function declared is 101 lines (max 100)',
      'src/query/long.ts:205: function arrow is 101 lines (max 100)',
      'src/query/long.ts:407: function Reader.method is 101 lines (max 100)',
      'src/query/long.ts:608: function Reader.constructor is 101 lines (max 100)',
      'src/query/long.ts:710: function <anonymous> is 101 lines (max 100)',
      'src/query/long.ts:811: function onRow is 101 lines (max 100)',
    ]);
  });

  it('reports an inner function on its own as well as the outer one that holds it', () => {
    const inner = body('  const inner = () => {', 101, '  };');
    const root = tree({ 'workers/entry.ts': `export function outer() {\n${inner}\n}\n` });
    expect(lines(root)).toEqual([
      'workers/entry.ts:1: function outer is 103 lines (max 100)',
      'workers/entry.ts:2: function inner is 101 lines (max 100)',
    ]);
  });
});

describe('rule 4: no interface or object type over 20 members', () => {
  it('reports a 21-member interface, type alias and inline type, and not 20-member ones', () => {
    const root = tree({
      'src/config.ts': [
        `export interface Wide {\n${members(21)}\n}`,
        `export interface Kept {\n${members(20)}\n}`,
        `export type WideAlias = {\n${members(21)}\n};`,
        `export type KeptAlias = {\n${members(20)}\n};`,
        `export function take(options: {\n${members(21)}\n}): void {}`,
        `export function keep(options: {\n${members(20)}\n}): void {}`,
      ].join('\n'),
    });
    expect(lines(root)).toEqual([
      'src/config.ts:1: interface Wide has 21 members (max 20)',
      'src/config.ts:46: type WideAlias has 21 members (max 20)',
      'src/config.ts:91: object type literal has 21 members (max 20)',
    ]);
  });
});

describe('the command', () => {
  const run = (root: string) => spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, root], { cwd: PROJECT, encoding: 'utf8' });

  it('prints the violations sorted and exits 1, or one OK line and exits 0', () => {
    const broken = run(tree({ 'src/z.ts': "import 'pg';\n", 'src/a/wide.ts': `interface W {\n${members(21)}\n}\n` }));
    expect(broken.status).toBe(1);
    expect(broken.stdout.trim().split('\n')).toEqual([
      'src/a/wide.ts:1: interface W has 21 members (max 20)',
      "src/z.ts:1: imports PostgreSQL package 'pg' outside src/datasources/postgres/ and src/catalog/postgres/",
    ]);
    const kept = run(tree({ 'src/a/x.ts': "import '../b/y.ts';\n", 'src/b/y.ts': 'export const y = () => 1;\n' }));
    expect(kept.status).toBe(0);
    expect(kept.stdout).toMatch(/^check-layout: OK: 2 files read; .*2 parts of src\/ with 1 import edges, no cycle; 1 functions/);
  });

  it('refuses a root without src/ or workers/ rather than passing it', () => {
    const empty = run(tree({ 'README.md': '' }));
    expect(empty.status).toBe(2);
  });
});
