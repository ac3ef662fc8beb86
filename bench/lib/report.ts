/**
 * The bench's output: one row per figure (target, measured, held?), printed
 * as a table and appended as a dated section, misses included, followed by
 * the raw medians behind each ratio, to the day's log of runs
 * (bench/runs/<date>.md, or the file BENCH_RUNS_FILE names, such as a
 * topic's own bench/runs/<date>-<topic>.md). bench/RESULTS.md holds only the
 * current figures against their targets, each linked to the run it comes from.
 */
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MachineInfo } from './machine.ts';

export interface Row {
  figure: string;
  target: string;
  measured: string;
  /** null: informational, no target. */
  held: boolean | null;
}

export interface Section {
  title: string;
  rows: Row[];
  /** Raw figures behind the ratios (medians, spreads, settings). */
  notes: string[];
}

/** Where a run is logged: the day's file unless BENCH_RUNS_FILE names another (a topic's own file). */
function runsFile(date: string): string {
  return process.env.BENCH_RUNS_FILE ?? fileURLToPath(new URL(`../runs/${date.slice(0, 10)}.md`, import.meta.url));
}

function heldText(held: boolean | null): string {
  return held === null ? '(info)' : held ? 'yes' : '**NO**';
}

function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|');
}

export function markdownTable(rows: Row[]): string {
  const lines = ['| Figure | Target | Measured | Held? |', '|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${escapeCell(r.figure)} | ${escapeCell(r.target)} | ${escapeCell(r.measured)} | ${heldText(r.held)} |`);
  return lines.join('\n');
}

export function printSection(section: Section): void {
  const widths = [50, 26, 40];
  console.log(`\n${section.title}`);
  for (const r of section.rows) {
    console.log(
      `  ${r.figure.padEnd(widths[0]!)} ${r.target.padEnd(widths[1]!)} ${r.measured.padEnd(widths[2]!)} ${heldText(r.held).replaceAll('*', '')}`,
    );
  }
}

export function appendResults(machine: MachineInfo, command: string, sections: Section[], totalMs: number): string {
  const file = runsFile(machine.date);
  mkdirSync(dirname(file), { recursive: true });
  const header = existsSync(file)
    ? ''
    : `# Sluice bench runs, ${machine.date.slice(0, 10)}\n\nAppended by \`npm run bench\` (bench/run.ts); newest last; the current figures are in ../RESULTS.md. Every figure is a median of several interleaved runs and is read as a ratio against a baseline measured in the same run: the machine is shared and noisy, absolute times drift.\n`;
  const parts = [
    `\n## ${machine.date} — \`${command}\`\n`,
    `Machine: ${machine.nproc} cores (nproc), ${machine.memory} memory, Node ${machine.node}, ${machine.postgres}; @duckdb/node-api ${machine.duckdbNodeApi} (DuckDB ${machine.duckdb}), pg (node-postgres) ${machine.pg}. Load average at start: ${machine.loadavg}. Whole run: ${(totalMs / 1000).toFixed(0)} s.\n`,
    `Code measured: ${machine.source}.\n`,
  ];
  for (const section of sections) {
    parts.push(`### ${section.title}\n`, markdownTable(section.rows), '');
    if (section.notes.length > 0) parts.push(section.notes.map((n) => `- ${n}`).join('\n'), '');
  }
  const text = parts.join('\n');
  if (header) writeFileSync(file, header);
  appendFileSync(file, text);
  return file;
}
