/**
 * Event-loop stall sampler: a 10 ms interval timer whose late firings are the
 * stalls. The largest gap beyond the interval is the longest the loop (and so
 * the API hosted on it) could not answer.
 */
export interface LoopGapSampler {
  /** Stops sampling; returns the largest and the 99th-percentile lateness in ms. */
  stop(): { maxMs: number; p99Ms: number; samples: number };
}

export function sampleLoopGaps(intervalMs = 10): LoopGapSampler {
  const lateness: number[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    lateness.push(Math.max(0, now - last - intervalMs));
    last = now;
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const now = performance.now();
      lateness.push(Math.max(0, now - last - intervalMs));
      const sorted = [...lateness].sort((a, b) => a - b);
      return {
        maxMs: sorted.at(-1) ?? 0,
        p99Ms: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
        samples: sorted.length,
      };
    },
  };
}
