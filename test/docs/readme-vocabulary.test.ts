/**
 * Where README.md spells out one of the contract's closed vocabularies by
 * hand, it must say exactly what src/vocabulary.ts says, in the same order:
 * adding, renaming or dropping a value there fails here until the README
 * follows.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHART_TYPES, DOWNLOAD_FORMATS, FILTER_OPS, MATERIALIZE_MODES, ROLES, SQL_BLOCK_KINDS } from '../../src/vocabulary.ts';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The text the pattern's first group captures; a README that no longer has the sentence fails too. */
function captured(pattern: RegExp): string {
  const match = README.match(pattern);
  if (match?.[1] === undefined) throw new Error(`README.md has no text matching ${pattern}: update this test with the sentence that now lists the values.`);
  return match[1];
}

/** Words inside backticks or double quotes, in order. */
const quotedWords = (text: string) => [...text.matchAll(/[`"]([a-z_]+)[`"]/g)].map((m) => m[1]);

describe('README lists the vocabularies of src/vocabulary.ts', () => {
  it('filter ops (reading an artifact)', () => {
    expect(captured(/`filters` \(AND-ed; `([^`]+)`\)/).split(/\s+/)).toEqual([...FILTER_OPS]);
  });

  it('materialize modes (submitting a query)', () => {
    expect(quotedWords(captured(/`materialize` \(([^)]+)\)/))).toEqual([...MATERIALIZE_MODES]);
  });

  it('download formats', () => {
    expect(captured(/\/download\?format=([a-z|]+)`/).split('|')).toEqual([...DOWNLOAD_FORMATS]);
  });

  it('chart types (saved visualizations)', () => {
    expect(captured(/with a chart \(([^)]+)\)/).split(/,\s*/)).toEqual([...CHART_TYPES]);
  });

  it('SQL block kinds (chat)', () => {
    expect(quotedWords(captured(/back\s+labelled\s+([^;]+);/))).toEqual([...SQL_BLOCK_KINDS]);
  });

  it('token roles (SLUICE_TOKENS)', () => {
    expect(quotedWords(captured(/"roles"\?: \[([^\]]+)\]/))).toEqual([...ROLES]);
  });
});
