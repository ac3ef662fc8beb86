/**
 * Timing on a shared, noisy machine: contenders are run in interleaved
 * rounds (A B C, B C A, ...) after one unrecorded warm-up round, so a slow
 * spell of the machine lands on every contender instead of one of them.
 */

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

export type Contenders = Record<string, () => Promise<unknown>>;

/** Runs each contender once per round, rotating the order; returns each one's samples in ms. */
export async function interleave(
  contenders: Contenders,
  rounds: number,
  options: { warmup?: boolean; log?: (line: string) => void } = {},
): Promise<Record<string, number[]>> {
  const names = Object.keys(contenders);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  if (options.warmup !== false) for (const name of names) await contenders[name]!();
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length]!;
      const { ms } = await timed(contenders[name]!);
      samples[name]!.push(ms);
    }
    options.log?.(`  round ${round + 1}/${rounds}: ${names.map((n) => `${n} ${samples[n]!.at(-1)!.toFixed(0)} ms`).join(', ')}`);
  }
  return samples;
}
