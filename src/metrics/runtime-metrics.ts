/**
 * The runtime's own series (process CPU, memory and file descriptors, the
 * heap, garbage collection, event-loop lag), from prom-client's defaults,
 * under their standard names so existing dashboards read them. prom-client's
 * `nodejs_active_*_total` are gauges with a counter's suffix, which
 * `promtool check metrics` rejects: they are left out (the same counts are
 * in `nodejs_active_handles`, `nodejs_active_requests` and
 * `nodejs_active_resources`, by type).
 */
import { collectDefaultMetrics, type Registry } from 'prom-client';

const MISNAMED = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export function addRuntimeMetrics(registry: Registry): void {
  try {
    collectDefaultMetrics({ register: registry });
  } catch {
    // A runtime without some of Node's process APIs still serves Sluice's own series.
  }
  for (const name of MISNAMED) registry.removeSingleMetric(name);
}
