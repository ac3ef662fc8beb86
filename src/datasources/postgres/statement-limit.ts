/** A statement's own top-level LIMIT, read from PostgreSQL's parse tree, so a tool can say when it may have cut the rows. */
import { parse } from 'libpg-query';

export async function ownLimit(sql: string): Promise<number | null> {
  try {
    const tree = (await parse(sql)) as { stmts: { stmt: { SelectStmt?: { limitCount?: { A_Const?: { ival?: { ival?: number } } } } } }[] };
    const ival = tree.stmts[0]?.stmt.SelectStmt?.limitCount?.A_Const?.ival;
    return ival === undefined ? null : (ival.ival ?? 0);
  } catch {
    return null;
  }
}
