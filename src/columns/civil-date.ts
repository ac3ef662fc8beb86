/**
 * Calendar arithmetic on DuckDB's day counts, in integers, so no date is out
 * of range for JavaScript's Date: the proleptic Gregorian calendar, as DuckDB
 * and PostgreSQL use it, with astronomical years (1 BC is year 0).
 */

/** Year, month and day of a count of days since 1970-01-01 (Hinnant's civil_from_days). */
export function civil(days: number): [number, number, number] {
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

export const MICROS_PER_DAY = 86_400_000_000n;

export const pad = (n: number | bigint, width: number): string => String(n).padStart(width, '0');

/** Days since the epoch and `HH:MM:SS.ffffff` of a count of microseconds since it. */
export function dayAndTime(micros: bigint): { days: number; time: string } {
  let days = micros / MICROS_PER_DAY;
  let rest = micros % MICROS_PER_DAY;
  if (rest < 0n) {
    rest += MICROS_PER_DAY;
    days -= 1n;
  }
  const seconds = rest / 1_000_000n;
  return { days: Number(days), time: `${pad(seconds / 3600n, 2)}:${pad((seconds / 60n) % 60n, 2)}:${pad(seconds % 60n, 2)}.${pad(rest % 1_000_000n, 6)}` };
}
