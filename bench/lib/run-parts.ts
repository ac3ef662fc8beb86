/**
 * Runs bench parts one after another and records them: the machine, code and
 * load, each part's figures printed and appended to the day's log in bench/runs/ (a part
 * that throws is recorded as FAILED), and the ratio chart redrawn. Used by
 * `npm run bench` (run.ts) and by a part run as a script of its own.
 */
import { loadavg } from 'node:os';
import { writeRatioChart } from './chart.ts';
import { machineInfo } from './machine.ts';
import { appendResults, printSection, type Section } from './report.ts';
import { median } from './stats.ts';

export type Part = (log: (line: string) => void) => Promise<Section>;

/** Runs the parts in order; resolves true when every one ran to the end. */
export async function runParts(parts: [name: string, part: Part][], command: string): Promise<boolean> {
  const t0 = performance.now();
  const log = (line: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${line}`);
  const machine = await machineInfo();
  log(`${machine.nproc} cores, ${machine.memory}, Node ${machine.node}, ${machine.postgres}, @duckdb/node-api ${machine.duckdbNodeApi}, pg ${machine.pg}`);

  const sections: Section[] = [];
  let failed = false;
  for (const [name, part] of parts) {
    // Other work on the machine shows in every figure: record the 1-minute load average meanwhile.
    const loads: number[] = [loadavg()[0]!];
    const loadTimer = setInterval(() => loads.push(loadavg()[0]!), 5000);
    try {
      const section = await part(log);
      section.notes.push(
        `1-minute load average during this part (${loads.length} samples, 5 s apart): min ${Math.min(...loads).toFixed(1)}, median ${median(loads).toFixed(1)}, max ${Math.max(...loads).toFixed(1)} on ${machine.nproc} cores; above ~${machine.nproc + 1} other work competed for the CPU.`,
      );
      sections.push(section);
    } catch (error) {
      failed = true;
      console.error(`bench part "${name}" failed:`, error);
      sections.push({
        title: `${name}: FAILED`,
        rows: [{ figure: `${name} part`, target: 'runs to the end', measured: (error as Error).message.split('\n')[0]!, held: false }],
        notes: [],
      });
    } finally {
      clearInterval(loadTimer);
    }
  }
  for (const section of sections) printSection(section);
  const totalMs = performance.now() - t0;
  const file = appendResults(machine, command, sections, totalMs);
  console.log(`\nWhole run ${(totalMs / 1000).toFixed(0)} s; appended to ${file}`);
  const chart = await writeRatioChart(sections, machine.date);
  if (chart !== null) console.log(`Chart of the ratios: ${chart}`);
  return !failed;
}
