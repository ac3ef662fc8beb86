/**
 * A picture of the run's ratios (bench/ratios.svg), drawn with the same
 * Vega-Lite renderer the server uses: one bar per figure measured as a
 * ratio, so a regression shows at a glance.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderSvg } from '../../src/semantic/chart-spec.ts';
import type { Section } from './report.ts';

const FILE = fileURLToPath(new URL('../ratios.svg', import.meta.url));

export async function writeRatioChart(sections: Section[], date: string): Promise<string | null> {
  const values = sections.flatMap((section) =>
    section.rows.flatMap((row) => {
      const match = /^([\d.]+)×/.exec(row.measured);
      return match ? [{ figure: row.figure, ratio: Number(match[1]), held: row.held === null ? 'info' : row.held ? 'held' : 'missed' }] : [];
    }),
  );
  if (values.length === 0) return null;
  const svg = await renderSvg({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: `Sluice benchmark ratios, ${date} (against baselines measured in the same run)`,
    data: { values },
    width: 420,
    height: { step: 22 },
    // Points on a log scale (bars cannot start at 0 there), with a rule at 1: the baseline.
    layer: [
      { mark: { type: 'rule', color: '#999' }, encoding: { x: { datum: 1 } } },
      {
        mark: { type: 'point', filled: true, size: 90 },
        encoding: {
          y: { field: 'figure', type: 'nominal', sort: null, title: null, axis: { labelLimit: 460 } },
          x: { field: 'ratio', type: 'quantitative', scale: { type: 'log' }, title: 'ratio to the baseline (log scale; 1 = the baseline)' },
          color: { field: 'held', type: 'nominal', scale: { domain: ['held', 'missed', 'info'], range: ['#4c9a2a', '#c0392b', '#7f8c8d'] }, title: 'target' },
          tooltip: [{ field: 'figure' }, { field: 'ratio' }],
        },
      },
    ],
  });
  writeFileSync(FILE, svg);
  return FILE;
}
