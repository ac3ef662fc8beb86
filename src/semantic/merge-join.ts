/**
 * How a merge's two sources meet: which keys pair up (validated: dimensions
 * of their source, of one type and grain, covering every dimension so the
 * join never fans out), the join condition, and the joined rows.
 *
 * Keys that are NULL on both sides match, as Lightdash's merge builder has
 * them: each pair is compared as
 *   (l IS NULL) = (r IS NULL) AND COALESCE(l, p) = COALESCE(r, p)
 * with p a bound placeholder of the key's type. Both terms are plain
 * equalities of one side against the other, so the condition stays
 * hash-joinable and PostgreSQL accepts it under FULL JOIN (it refuses
 * `IS NOT DISTINCT FROM` there); the null-ness term keeps a real value equal
 * to the placeholder from pairing with a NULL.
 */
import type { SemanticValueType, SqlDialect } from '../datasources/driver.ts';
import type { ResolvedField } from './catalog.ts';
import type { CompiledSource } from './compile-metric.ts';
import type { SemanticIssues } from './issues.ts';

export interface KeyPair {
  left: ResolvedField;
  right: ResolvedField;
  /** The type both sides are compared as: a date key joins a timestamp key at a grain as dates. */
  type: SemanticValueType;
}

const PLACEHOLDER: Record<SemanticValueType, unknown> = { string: '', number: 0, boolean: false, date: '1970-01-01', timestamp: '1970-01-01T00:00:00Z' };

const grainOf = (f: ResolvedField) => (f.kind === 'dimension' ? f.grain : null);

/** The join key pairs, each checked; errors go to `issues` and leave the pair out. */
export function keyPairs(left: CompiledSource, right: CompiledSource, joinOn: { left: string; right: string }[], issues: SemanticIssues): KeyPair[] {
  if (joinOn.length === 0) issues.add('merge_shape', null, null, 'a merge needs at least one joinOn pair of dimensions.');
  const pairs = joinOn.flatMap((pair): KeyPair[] => {
    const l = left.dimensions.find((d) => d.id === pair.left);
    const r = right.dimensions.find((d) => d.id === pair.right);
    if (l === undefined) issues.add('join_key', 0, pair.left, `join key "${pair.left}" is not one of source 0's dimensions.`);
    if (r === undefined) issues.add('join_key', 1, pair.right, `join key "${pair.right}" is not one of source 1's dimensions.`);
    if (l === undefined || r === undefined) return [];
    const [lg, rg] = [grainOf(l), grainOf(r)];
    const dateAndTimestamp = lg !== null && rg !== null && [l.type, r.type].includes('date') && [l.type, r.type].includes('timestamp');
    if (l.type !== r.type && !dateAndTimestamp) {
      issues.add('join_type_mismatch', 1, pair.right, `join key "${pair.right}" is a ${r.type}, but "${pair.left}" is a ${l.type}; join dimensions of the same type (a date and a timestamp join at a shared time grain).`);
      return [];
    }
    if (lg !== rg) {
      issues.add('join_grain_mismatch', 1, pair.right, `join key "${pair.right}" has grain ${rg ?? 'none'}, but "${pair.left}" has ${lg ?? 'none'}; use the same time grain on both sides.`);
      return [];
    }
    return [{ left: l, right: r, type: dateAndTimestamp ? 'date' : (l.type as SemanticValueType) }];
  });
  for (const d of left.dimensions) {
    if (!joinOn.some((p) => p.left === d.id)) issues.add('fan_out', 0, d.id, `dimension "${d.id}" is not a join key, so each row of source 1 would repeat for each of its values (fan-out). Add it to joinOn or remove it from source 0.`);
  }
  for (const d of right.dimensions) {
    if (!joinOn.some((p) => p.right === d.id)) issues.add('fan_out', 1, d.id, `dimension "${d.id}" is not a join key, so each row of source 0 would repeat for each of its values (fan-out). Add it to joinOn or remove it from source 1.`);
  }
  return pairs;
}

/** A key's column of source `side`, as the pair compares it (a timestamp joined to a date becomes a date). */
export function keyColumn(dialect: SqlDialect, pair: KeyPair, side: 0 | 1): string {
  const field = side === 0 ? pair.left : pair.right;
  const column = `${dialect.quoteIdentifier(`s${side}`)}.${dialect.quoteIdentifier(field.id)}`;
  const grain = grainOf(field);
  return pair.type === 'date' && field.type === 'timestamp' && grain !== null ? dialect.dateTrunc(grain, column, 'date') : column;
}

/** The join condition; `bind` binds each placeholder where it stands, so call this once per use of the condition. */
export function joinCondition(dialect: SqlDialect, pairs: KeyPair[], bind: (value: unknown, type: SemanticValueType) => string): string {
  return pairs
    .map((pair) => {
      const [l, r] = [keyColumn(dialect, pair, 0), keyColumn(dialect, pair, 1)];
      return `(${l} IS NULL) = (${r} IS NULL) AND COALESCE(${l}, ${bind(PLACEHOLDER[pair.type], pair.type)}) = COALESCE(${r}, ${bind(PLACEHOLDER[pair.type], pair.type)})`;
    })
    .join(' AND ');
}

/**
 * The joined rows, before the merge's own sorts and limit. An engine
 * without FULL JOIN (MariaDB, MySQL) gets its equivalent: the LEFT JOIN,
 * and the right side's rows that matched nothing. Those are told by a
 * marker column on the left side, absent (NULL) exactly where no left row
 * matched; the left key cannot tell them, since NULL keys match.
 */
export function joinedRows(dialect: SqlDialect, joinType: 'left' | 'inner' | 'full', outputs: string, on: () => string): string {
  const [s0, s1] = [dialect.quoteIdentifier('s0'), dialect.quoteIdentifier('s1')];
  if (joinType !== 'full' || dialect.fullJoin) return `SELECT ${outputs} FROM ${s0} ${joinType.toUpperCase()} JOIN ${s1} ON ${on()}`;
  const marker = dialect.quoteIdentifier('matched');
  return [
    `SELECT ${outputs} FROM ${s0} LEFT JOIN ${s1} ON ${on()}`,
    'UNION ALL',
    `SELECT ${outputs} FROM (SELECT ${s0}.*, 1 AS ${marker} FROM ${s0}) AS ${s0} RIGHT JOIN ${s1} ON ${on()} WHERE ${s0}.${marker} IS NULL`,
  ].join('\n');
}
