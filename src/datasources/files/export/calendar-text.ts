/**
 * Dates and timestamps as PostgreSQL's COPY writes them, which the export
 * core reads (worker/export/duckdb-csv.ts): ISO, microseconds, the era last
 * (` BC`, 44 BC being year 44, not DuckDB's astronomical -43), `infinity`
 * and `-infinity`. Computed from DuckDB's day and microsecond counts with
 * integer arithmetic, so no date is out of JavaScript's Date range.
 */
import { civil, dayAndTime, pad } from '../../../columns/civil-date.ts';

/** The date part, and whether it is BC (the caller puts ` BC` last). */
function datePart(days: number): { text: string; bc: boolean } {
  const [year, month, day] = civil(days);
  const bc = year <= 0;
  return { text: `${pad(bc ? 1 - year : year, 4)}-${pad(month, 2)}-${pad(day, 2)}`, bc };
}

export function dateText(days: number, finite: boolean): string {
  if (!finite) return days > 0 ? 'infinity' : '-infinity';
  const { text, bc } = datePart(days);
  return bc ? `${text} BC` : text;
}

/** A timestamp of `micros` since the epoch; `zone` is written after the time (`+00` for TIMESTAMPTZ in UTC). */
export function timestampText(micros: bigint, finite: boolean, zone = ''): string {
  if (!finite) return micros > 0n ? 'infinity' : '-infinity';
  const { days, time } = dayAndTime(micros);
  const { text, bc } = datePart(days);
  return `${text} ${time}${zone}${bc ? ' BC' : ''}`;
}
