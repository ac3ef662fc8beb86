/**
 * An S3-compatible server for tests: s3rver in a child process on a free
 * port of 127.0.0.1, keeping its objects in a temporary directory, with one
 * bucket made at start. Stopping kills the process (as a crashed or
 * unreachable service would vanish); starting again brings it back on the
 * same port with the objects it held. Credentials are s3rver's fixed pair,
 * given through the environment variables of the SDK's default chain, as an
 * operator would give them.
 *
 * Why a child process: s3rver signs ListObjectsV2 continuation tokens with
 * DES, which OpenSSL 3 only offers through its legacy provider, a flag of
 * the process (`--openssl-legacy-provider`); in the test's own process every
 * truncated listing would fail with a 500.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** s3rver's built-in account. */
export const S3_ACCESS_KEY = 'S3RVER';

const S3RVER = createRequire(import.meta.url).resolve('s3rver');

// Runs in the child: prints the port once listening, and ends when its parent goes (stdin closes).
// s3rver 3.7 answers a PUT when its hashing stream ends, before its file stream has written the
// object (lib/stores/filesystem.js), so a listing right after could see 0 bytes on a loaded machine.
// The patch waits for the file to hold them, as S3 does before it answers.
const CHILD = `
const S3rver = require(process.env.S3RVER_MODULE);
const { join, dirname } = require('node:path');
const { stat } = require('node:fs/promises');
const FilesystemStore = require(join(dirname(process.env.S3RVER_MODULE), 'stores', 'filesystem.js'));
const putObject = FilesystemStore.prototype.putObject;
FilesystemStore.prototype.putObject = async function (object) {
  const put = await putObject.call(this, object);
  const file = this.getResourcePath(object.bucket, object.key, 'object');
  for (let wait = 0; wait < 1000 && (await stat(file)).size < put.size; wait++) await new Promise((r) => setTimeout(r, 5));
  return put;
};
const bucket = process.env.S3RVER_BUCKET;
new S3rver({ address: '127.0.0.1', port: Number(process.env.S3RVER_PORT), silent: true,
  directory: process.env.S3RVER_DIRECTORY, configureBuckets: bucket ? [{ name: bucket }] : [] })
  .run().then((address) => console.log(JSON.stringify({ port: address.port })));
process.stdin.on('end', () => process.exit(0)).resume();
`;

export interface TestS3Server {
  endpoint: string;
  port: number;
  bucket: string;
  /** Takes the server away: its process is killed, connections are cut and new ones refused. */
  stop(): Promise<void>;
  /** Brings it back on the same port, with the objects it held. */
  start(): Promise<void>;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}

export async function startS3Server(bucket = 'sluice-test-bytes'): Promise<TestS3Server> {
  process.env.AWS_ACCESS_KEY_ID = S3_ACCESS_KEY;
  process.env.AWS_SECRET_ACCESS_KEY = S3_ACCESS_KEY;
  const directory = mkdtempSync(join(tmpdir(), 'sluice-s3-'));
  let child: ChildProcess | undefined;
  let port = 0;

  async function start(): Promise<void> {
    const started = spawn(process.execPath, ['--openssl-legacy-provider', '-e', CHILD], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: {
        ...process.env,
        S3RVER_MODULE: S3RVER,
        S3RVER_PORT: String(port),
        S3RVER_DIRECTORY: directory,
        // Made once; a restart finds it in the directory.
        S3RVER_BUCKET: port === 0 ? bucket : '',
      },
    });
    const lines = createInterface({ input: started.stdout! });
    let listening = false;
    const exited = once(started, 'exit').then(([code]) => {
      if (!listening) throw new Error(`s3rver exited before listening (code ${String(code)})`);
    });
    const [line] = (await Promise.race([once(lines, 'line'), exited])) as [string];
    listening = true;
    port = (JSON.parse(line) as { port: number }).port;
    child = started;
  }

  async function stop(): Promise<void> {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  }

  await start();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    bucket,
    stop,
    start,
    close: async () => {
      await stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
