/**
 * CPU seconds of the PostgreSQL backends serving this process, as the
 * kernel counts them (/proc/<pid>/stat utime + stime of each backend). A
 * backend is this process's when its client port is one of this process's
 * own TCP sockets (its file descriptors, matched by inode in /proc/net/tcp
 * and tcp6), so the backends of other programs using the same server are
 * never counted. Needs the server on this machine and read access to its
 * processes' stat files (any user can read them on Linux).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { openAdminSql } from '../../test/helpers/admin-sql.ts';

const TICKS_PER_SECOND = 100;

function ownSocketPorts(): Set<number> {
  const inodes = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined) inodes.add(inode);
    } catch {
      // Closed meanwhile.
    }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is "HEXADDR:HEXPORT"; the inode is the tenth field.
      if (fields.length > 9 && inodes.has(fields[9]!)) ports.add(Number.parseInt(fields[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

function cpuSecondsOf(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

export interface BackendCpuSampler {
  /** Stops sampling; the CPU seconds the backends of this process used since start (a backend that ended between samples counts up to its last sample). */
  stop(): Promise<{ seconds: number; backends: number }>;
}

/** Samples every `everyMs` the backends connected from this process, through a connection of its own (not counted). */
export async function sampleBackendCpu(databaseUrl: string, everyMs = 200): Promise<BackendCpuSampler> {
  const sql = openAdminSql(databaseUrl);
  const [own] = await sql.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const sample = async () => {
    const ports = [...ownSocketPorts()];
    if (ports.length === 0) return;
    const rows = await sql.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[]) AND pid <> $2', [ports, own!.pid]);
    for (const { pid } of rows) {
      const cpu = cpuSecondsOf(pid);
      if (cpu === undefined) continue;
      // A backend first seen now started during the export (or just before): all its CPU is the export's.
      if (!first.has(pid)) first.set(pid, started ? 0 : cpu);
      last.set(pid, cpu);
    }
  };
  let started = false;
  await sample();
  started = true;
  let running = true;
  const loop = (async () => {
    while (running) {
      await new Promise((r) => setTimeout(r, everyMs));
      await sample().catch(() => undefined);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await sample().catch(() => undefined);
      await sql.end();
      let seconds = 0;
      for (const [pid, cpu] of last) seconds += cpu - (first.get(pid) ?? 0);
      return { seconds, backends: last.size };
    },
  };
}
