/**
 * CPU time of this process's child processes, as the kernel counts it
 * (/proc/<pid>/stat utime + stime): what a helper process such as s3rver
 * takes from the cores the measured work runs on.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

function children(): number[] {
  return readdirSync('/proc/self/task').flatMap((task) =>
    readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
  );
}

/** User plus system CPU seconds of the children whose command line contains `marker`. */
export function childCpuSeconds(marker: string): number {
  let ticks = 0;
  for (const pid of children()) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) continue;
      // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Gone meanwhile.
    }
  }
  return ticks / TICKS_PER_SECOND;
}
