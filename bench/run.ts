/**
 * `npm run bench [-- export|reads|startup|http]`: runs the selected parts (all by
 * default), prints each figure against its target as a ratio to a baseline
 * measured in the same run, and appends a dated section to bench/RESULTS.md.
 */
import { loadavg } from 'node:os';
import { exportSection } from './export.ts';
import { machineInfo } from './lib/machine.ts';
import { appendResults, printSection, type Section } from './lib/report.ts';
import { readsSection } from './reads.ts';
import { median } from './lib/stats.ts';
import { startupSection } from './startup.ts';
import { httpSection } from './http.ts';
import { writeRatioChart } from './lib/chart.ts';

const PARTS = { export: exportSection, reads: readsSection, startup: startupSection, http: httpSection } as const;
type Part = keyof typeof PARTS;

const args = process.argv.slice(2);
const unknown = args.filter((a) => !(a in PARTS));
if (unknown.length > 0) {
  console.error(`Unknown part(s): ${unknown.join(', ')}. Usage: npm run bench [-- export] [reads] [startup] [http]`);
  process.exit(2);
}
const selected: Part[] = args.length === 0 ? ['export', 'reads', 'startup', 'http'] : (args as Part[]);

const t0 = performance.now();
const log = (line: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${line}`);
const machine = await machineInfo();
log(`${machine.nproc} cores, ${machine.memory}, Node ${machine.node}, ${machine.postgres}, @duckdb/node-api ${machine.duckdbNodeApi}, postgres ${machine.postgresJs}`);

const sections: Section[] = [];
let failed = false;
for (const part of selected) {
  // Other work on the machine shows in every figure: record the 1-minute load average meanwhile.
  const loads: number[] = [loadavg()[0]!];
  const loadTimer = setInterval(() => loads.push(loadavg()[0]!), 5000);
  try {
    const section = await PARTS[part](log);
    section.notes.push(
      `1-minute load average during this part (${loads.length} samples, 5 s apart): min ${Math.min(...loads).toFixed(1)}, median ${median(loads).toFixed(1)}, max ${Math.max(...loads).toFixed(1)} on ${machine.nproc} cores; above ~${machine.nproc + 1} other work competed for the CPU.`,
    );
    sections.push(section);
  } catch (error) {
    failed = true;
    console.error(`bench part "${part}" failed:`, error);
    sections.push({
      title: `${part}: FAILED`,
      rows: [{ figure: `${part} part`, target: 'runs to the end', measured: (error as Error).message.split('\n')[0]!, held: false }],
      notes: [],
    });
  } finally {
    clearInterval(loadTimer);
  }
}
for (const section of sections) printSection(section);
const totalMs = performance.now() - t0;
const file = appendResults(machine, `npm run bench${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`, sections, totalMs);
console.log(`\nWhole run ${(totalMs / 1000).toFixed(0)} s; appended to ${file}`);
const chart = await writeRatioChart(sections, machine.date);
if (chart !== null) console.log(`Chart of the ratios: ${chart}`);
process.exit(failed ? 1 : 0);
