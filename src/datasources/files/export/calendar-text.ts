/**
 * Dates and timestamps as PostgreSQL's COPY writes them, which the export
 * core reads (worker/export/duckdb-csv.ts): ISO, microseconds, the era last
 * (` BC`, 44 BC being year 44, not DuckDB's astronomical -43), `infinity`
 * and `-infinity`. Computed from DuckDB's day and microsecond counts with
 * integer arithmetic, so no date is out of JavaScript's Date range.
 */
const MICROS_PER_DAY = 86_400_000_000n;

/** Year, month and day of a count of days since 1970-01-01 (proleptic Gregorian; Hinnant's civil_from_days). */
function civil(days: number): [number, number, number] {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

const pad = (n: number | bigint, width: number) => String(n).padStart(width, '0');

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
  let days = micros / MICROS_PER_DAY;
  let rest = micros % MICROS_PER_DAY;
  if (rest < 0n) {
    rest += MICROS_PER_DAY;
    days -= 1n;
  }
  const seconds = rest / 1_000_000n;
  const time = `${pad(seconds / 3600n, 2)}:${pad((seconds / 60n) % 60n, 2)}:${pad(seconds % 60n, 2)}.${pad(rest % 1_000_000n, 6)}`;
  const { text, bc } = datePart(Number(days));
  return `${text} ${time}${zone}${bc ? ' BC' : ''}`;
}
