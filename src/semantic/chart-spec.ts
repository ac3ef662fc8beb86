/**
 * Builds a Vega-Lite spec from a semantic result and a chart config: tables
 * (a grid of text marks) and Cartesian charts (bar, line, area, scatter)
 * with several series, either several metrics on y or one dimension as
 * `series`. Field ids contain dots, which Vega-Lite reads as nesting, so
 * they are escaped; decimal strings of metrics become numbers for plotting.
 */
import { SluiceError } from '../errors.ts';
import type { ChartType } from '../vocabulary.ts';
import type { ResultField } from './compile.ts';

export interface ChartConfig {
  type: ChartType;
  x?: string | undefined;
  y?: string[] | undefined;
  series?: string | undefined;
}

interface ColumnInfo {
  name: string;
  type: string;
}

const NUMERIC = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric']);
const TEMPORAL = new Set(['date', 'timestamp', 'timestamptz']);

const escape = (id: string) => id.replace(/[.[\]\\]/g, (c) => `\\${c}`);

function invalidChart(message: string, field?: string): SluiceError {
  return new SluiceError('SEMANTIC_VALIDATION_ERROR', `Chart: ${message}`, field === undefined ? {} : { field });
}

export function chartSpec(chart: ChartConfig, fields: ResultField[], columns: ColumnInfo[], rows: unknown[][], title: string | undefined): Record<string, unknown> {
  const names = columns.map((c) => c.name);
  const index = (id: string, role: string) => {
    const i = names.indexOf(id);
    if (i === -1) throw invalidChart(`${role} "${id}" is not a field of the result (${names.join(', ')}).`, id);
    return i;
  };
  const values = rows.map((row) =>
    Object.fromEntries(columns.map((c, i) => [c.name, NUMERIC.has(c.type) && typeof row[i] === 'string' ? Number(row[i]) : row[i]])),
  );
  const base = { $schema: 'https://vega.github.io/schema/vega-lite/v5.json', ...(title ? { title } : {}), data: { values }, width: 640, height: 360 };
  if (chart.type === 'table') {
    return {
      ...base,
      height: { step: 20 },
      transform: [{ window: [{ op: 'row_number', as: '__row' }] }, { fold: names.map(escape), as: ['column', 'value'] }],
      mark: { type: 'text', align: 'left' },
      encoding: {
        x: { field: 'column', type: 'nominal', sort: names, axis: { orient: 'top', title: null, labelAngle: 0 } },
        y: { field: '__row', type: 'ordinal', axis: null },
        text: { field: 'value', type: 'nominal' },
      },
    };
  }
  if (chart.x === undefined) throw invalidChart(`a ${chart.type} chart needs "x".`);
  const ys = chart.y ?? fields.filter((f) => f.kind === 'metric').map((f) => f.id);
  if (ys.length === 0) throw invalidChart(`a ${chart.type} chart needs at least one "y" field.`);
  const xColumn = columns[index(chart.x, 'x')]!;
  for (const y of ys) {
    if (!NUMERIC.has(columns[index(y, 'y')]!.type)) throw invalidChart(`y "${y}" is not numeric.`, y);
  }
  if (chart.series !== undefined) index(chart.series, 'series');
  if (chart.series !== undefined && ys.length > 1) throw invalidChart('use either several y fields or one series field, not both.');
  const xType = TEMPORAL.has(xColumn.type) ? 'temporal' : NUMERIC.has(xColumn.type) && chart.type !== 'bar' ? 'quantitative' : 'nominal';
  const mark = { type: chart.type === 'scatter' ? 'point' : chart.type, tooltip: true };
  const x = { field: escape(chart.x), type: xType, title: chart.x };
  if (ys.length > 1) {
    return {
      ...base,
      transform: [{ fold: ys.map(escape), as: ['metric', 'value'] }],
      mark,
      encoding: { x, y: { field: 'value', type: 'quantitative', title: null }, color: { field: 'metric', type: 'nominal' }, ...(chart.type === 'bar' ? { xOffset: { field: 'metric' } } : {}) },
    };
  }
  return {
    ...base,
    mark,
    encoding: {
      x,
      y: { field: escape(ys[0]!), type: 'quantitative', title: ys[0] },
      ...(chart.series !== undefined ? { color: { field: escape(chart.series), type: 'nominal', title: chart.series } } : {}),
      ...(chart.series !== undefined && chart.type === 'bar' ? { xOffset: { field: escape(chart.series) } } : {}),
    },
  };
}

/** Renders a Vega-Lite spec to SVG on the server: no browser, no canvas. */
export async function renderSvg(spec: Record<string, unknown>): Promise<string> {
  const vega = await import('vega');
  const vegaLite = await import('vega-lite');
  const compiled = vegaLite.compile(spec as never).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
