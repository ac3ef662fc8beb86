/** Resident memory of this process, as the kernel counts it (all threads, native memory included). */
import { readFileSync } from 'node:fs';

function statusField(name: 'VmHWM' | 'VmRSS', pid: number | 'self'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
  if (match === null) throw new Error(`/proc/${pid}/status has no ${name}`);
  return Number(match[1]) * 1024;
}

/** Peak resident set size so far (VmHWM), in bytes. */
export function peakRss(pid: number | 'self' = 'self'): number {
  return statusField('VmHWM', pid);
}

export function currentRss(pid: number | 'self' = 'self'): number {
  return statusField('VmRSS', pid);
}
