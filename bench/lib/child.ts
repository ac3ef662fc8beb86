/**
 * Runs one measurement in a process of its own (so peak RSS and event-loop
 * figures of one run never mix with another's) and returns the JSON object
 * the child prints as its last stdout line.
 *
 * Children run compiled JavaScript, as `npm start` does (scripts/build.ts):
 * under tsx the process would also carry a loader thread and per-thread
 * hooks that the server users run does not have.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServer } from '../../scripts/build.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// One build directory per checkout: two checkouts that share one node_modules (a linked work tree)
// must never run each other's code. BENCH_BUILD_DIR still names another.
const CHECKOUT = createHash('sha256').update(ROOT).digest('hex').slice(0, 12);
const BUILD_DIR = process.env.BENCH_BUILD_DIR ?? join(ROOT, 'node_modules', '.cache', `sluice-bench-build-${CHECKOUT}`);
let built: Promise<string> | null = null;

/**
 * The compiled twin of a source file under src/, workers/ or bench/ (built once per run). test/helpers is
 * built too: the benches reach PostgreSQL as an administrator through its admin-sql.ts, as the tests do.
 */
export async function compiled(sourcePath: string): Promise<string> {
  built ??= buildServer(BUILD_DIR, ['src', 'workers', 'bench', 'test/helpers']);
  return join(await built, relative(ROOT, sourcePath)).replace(/\.ts$/, '.js');
}

export async function runChild<T>(script: string, args: string[], options: { nodeOptions?: string; timeoutMs?: number } = {}): Promise<T> {
  const env = { ...process.env, ...(options.nodeOptions ? { NODE_OPTIONS: options.nodeOptions } : {}) };
  const child = spawn(process.execPath, [await compiled(script), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  const last = stdout.trim().split('\n').at(-1) ?? '';
  try {
    const parsed = JSON.parse(last) as T & { error?: string };
    if (code !== 0 && parsed.error === undefined) throw new Error(`exit ${code}`);
    return parsed;
  } catch {
    throw new Error(`${script} ${args.join(' ')} failed (exit ${code}): ${stderr.trim().split('\n').slice(-8).join('\n') || last}`);
  }
}

/** Runs a shell command and returns its wall time in ms (it must exit 0). */
export async function timeShell(command: string): Promise<number> {
  const t0 = performance.now();
  const child = spawn('sh', ['-c', command], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const elapsed = performance.now() - t0;
  if (code !== 0) throw new Error(`${command} failed (exit ${code}): ${stderr.trim()}`);
  return elapsed;
}
