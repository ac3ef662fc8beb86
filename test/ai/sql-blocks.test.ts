/**
 * Which fenced blocks of a model's reply count as SQL: `sql`, unmarked
 * ones that are SQL, and the datasource dialect's own tags, not another
 * dialect's.
 */
import { describe, expect, it } from 'vitest';
import { extractSqlBlocks } from '../../src/ai/sql-blocks.ts';

const classify = async (sql: string) => (/^select/i.test(sql) ? ('select' as const) : ('other' as const));

describe('extractSqlBlocks', () => {
  const reply = ['```mysql\nSELECT 1\n```', '```postgres\nSELECT 2\n```', '```SQL\nSELECT 3\n```', '```\nSELECT 4\n```', '```json\n{"a": 1}\n```', '```\nnot sql at all\n```'].join('\n');

  it('counts the dialect\u2019s own tags, sql and unmarked SQL, whatever their case', async () => {
    const blocks = await extractSqlBlocks(reply, classify, ['mysql', 'mariadb']);
    expect(blocks.map((b) => b.sql)).toEqual(['SELECT 1', 'SELECT 3', 'SELECT 4']);
  });

  it('leaves another dialect\u2019s blocks out', async () => {
    const blocks = await extractSqlBlocks(reply, classify, ['postgres', 'postgresql']);
    expect(blocks.map((b) => b.sql)).toEqual(['SELECT 2', 'SELECT 3', 'SELECT 4']);
  });
});
