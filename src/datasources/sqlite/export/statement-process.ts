/**
 * One statement process seen from the export: started with the runtime
 * that runs the server (Node on the build, Node with tsx on the sources,
 * Bun, Deno), fed requests on stdin, read frame by frame from stdout. A
 * stop asks the process to end the statement between two batches; if it
 * has not within a grace period (SQLite is inside one long step, an
 * aggregate over an endless CTE), the process is killed, which always
 * ends the statement and its lock on the file.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FrameReader } from './frame-reader.ts';
import { STOP_LINE, type Frame, type StatementRequest } from './statement-protocol.ts';

/** How long a statement may take to notice a stop before its process is killed. */
const STOP_GRACE_MS = 500;

const ENTRY = new URL('./statement-process-main.ts', import.meta.url);

/** The command that runs the entry on this runtime, from the build or from the sources. */
export function entryCommand(): { command: string; args: string[] } {
  const compiled = import.meta.url.endsWith('.js');
  const entry = fileURLToPath(compiled ? ENTRY.href.replace(/\.ts$/, '.js') : ENTRY.href);
  // Deno's permissions: the process reads the datasource file and the runtime's environment, nothing else.
  if ('Deno' in globalThis) return { command: process.execPath, args: ['run', '--allow-read', '--allow-env', entry] };
  if (compiled || 'Bun' in globalThis) return { command: process.execPath, args: [entry] };
  // Node on the sources (development, tests): tsx's loader, as the server itself runs under it.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;
  return { command: process.execPath, args: ['--import', tsx, entry] };
}

export class StatementProcess {
  readonly #child: ChildProcessByStdio<Writable, Readable, null>;
  readonly #frames: FrameReader;
  #exited = false;
  #killTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    const { command, args } = entryCommand();
    this.#child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    this.#child.once('exit', () => {
      this.#exited = true;
      clearTimeout(this.#killTimer);
    });
    // A write to a process that just died is reported by its exit, not by this error.
    this.#child.stdin.on('error', () => undefined);
    this.#child.on('error', () => (this.#exited = true));
    this.#frames = new FrameReader(this.#child.stdout);
  }

  get alive(): boolean {
    return !this.#exited;
  }

  run(request: StatementRequest): void {
    this.#child.stdin.write(`${JSON.stringify(request)}\n`);
  }

  next(): Promise<Frame | null> {
    return this.#frames.next();
  }

  /** Asks the statement to stop; kills the process if it has not within the grace period. */
  stop(): void {
    if (this.#exited || this.#killTimer !== undefined) return;
    this.#child.stdin.write(`${STOP_LINE}\n`);
    this.#killTimer = setTimeout(() => this.kill(), STOP_GRACE_MS);
  }

  /** The statement stopped by itself after a stop: the process stays. */
  stopped(): void {
    clearTimeout(this.#killTimer);
    this.#killTimer = undefined;
  }

  kill(): void {
    if (!this.#exited) this.#child.kill('SIGKILL');
  }
}
