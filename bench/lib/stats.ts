/** Medians and the formatting of figures; every reported figure is a median of several runs. */

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (value >= 10_000) return `${(value / 1000).toFixed(1)} s`;
  if (value >= 1000) return `${(value / 1000).toFixed(2)} s`;
  if (value >= 100) return `${value.toFixed(0)} ms`;
  return `${value.toFixed(1)} ms`;
}

export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

export function ratio(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value >= 100 ? `${value.toFixed(0)}×` : value >= 10 ? `${value.toFixed(1)}×` : `${value.toFixed(2)}×`;
}

/** "a median (min-max, n runs)" note for the raw samples behind a figure. */
export function spread(samples: number[], format: (v: number) => string = ms): string {
  if (samples.length === 0) return 'no samples';
  return `${format(median(samples))} (${format(Math.min(...samples))}-${format(Math.max(...samples))}, n=${samples.length})`;
}
