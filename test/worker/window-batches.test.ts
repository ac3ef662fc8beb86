/**
 * How the API thread sends pages of windows to the read workers
 * (window-batches.ts): one batch in flight a worker, the pages that wait for
 * it sent together, each answered or failed on its own. The lanes here are
 * scripted so that the test decides when a worker answers; the workers'
 * own side is test/worker/row-windows.test.ts, and both together run in
 * test/artifacts/store/page-reads.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { fromErrorData, SluiceError, toErrorData } from '../../src/errors.ts';
import type { Settled, WindowResult, WindowTask } from '../../src/worker/protocol.ts';
import { MAX_BATCH, WindowBatches, type WindowLanes } from '../../src/worker/window-batches.ts';

interface Sent {
  lane: number;
  kind: 'one' | 'many' | 'forget';
  tasks: WindowTask[];
  keys: string[];
  answer: (answers: Settled<WindowResult>[]) => void;
  fail: (error: Error) => void;
}

/** Lanes that hold everything sent until the test answers it; `closed` makes every send throw at once, as a closed pool does. */
function scriptedLanes(): { lanes: WindowLanes; sent: Sent[]; close: () => void } {
  const sent: Sent[] = [];
  let closed = false;
  const shut = () => {
    if (closed) throw new SluiceError('INTERNAL', 'The server is shutting down.');
  };
  const lanes: WindowLanes = {
    one: (task, lane) => {
      shut();
      return new Promise((resolve, reject) => {
        sent.push({ lane, kind: 'one', tasks: [task], keys: [], answer: (answers) => (answers[0]!.ok ? resolve(answers[0]!.value) : reject(fromErrorData(answers[0]!.error))), fail: reject });
      });
    },
    many: (tasks, lane) => {
      shut();
      return new Promise((resolve, reject) => sent.push({ lane, kind: 'many', tasks, keys: [], answer: resolve, fail: reject }));
    },
    forget: (keys, lane) => {
      shut();
      return new Promise((resolve, reject) => sent.push({ lane, kind: 'forget', tasks: [], keys, answer: () => resolve(), fail: reject }));
    },
  };
  return { lanes, sent, close: () => (closed = true) };
}

const page = (key: string, from: number) => ({ key, sql: 'SELECT 1', rowsSql: 'SELECT 1', storages: ['int' as const], from, to: from + 1 });
const rowsOf = (task: WindowTask): Settled<WindowResult> => ({ ok: true, value: { rowsJson: [`[${task.from}]`], read: false, kept: true } });
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('WindowBatches', () => {
  it('sends a page to an idle worker at once and alone, and the pages that come while it is busy together', async () => {
    const { lanes, sent } = scriptedLanes();
    const batches = new WindowBatches(lanes, 2);
    const first = batches.read(page('a', 1), 4);
    expect(sent.map((s) => [s.lane, s.tasks.map((t) => t.from)])).toEqual([[0, [1]]]);
    const waiting = [batches.read(page('a', 2), 4), batches.read(page('b', 3), 6), batches.read(page('c', 4), 8)];
    // Another worker's page does not wait for this one.
    const other = batches.read(page('d', 5), 5);
    expect(sent.map((s) => [s.lane, s.tasks.map((t) => t.from)])).toEqual([[0, [1]], [1, [5]]]);
    // What /metrics counts as the read pool's queue.
    expect(batches.waiting).toBe(3);
    sent[0]!.answer([rowsOf(sent[0]!.tasks[0]!)]);
    expect((await first).rowsJson).toEqual(['[1]']);
    await tick();
    expect(batches.waiting).toBe(0);
    expect(sent[2]!.lane).toBe(0);
    expect(sent[2]!.tasks.map((t) => [t.type, t.key, t.from])).toEqual([['read-window', 'a', 2], ['read-window', 'b', 3], ['read-window', 'c', 4]]);
    sent[2]!.answer(sent[2]!.tasks.map(rowsOf));
    expect((await Promise.all(waiting)).map((r) => r.rowsJson)).toEqual([['[2]'], ['[3]'], ['[4]']]);
    sent[1]!.answer([rowsOf(sent[1]!.tasks[0]!)]);
    expect((await other).rowsJson).toEqual(['[5]']);
  });

  it('sends at most MAX_BATCH pages in a batch, and the rest in the next', async () => {
    const { lanes, sent } = scriptedLanes();
    const batches = new WindowBatches(lanes, 1);
    const reads = Array.from({ length: MAX_BATCH + 4 }, (_, i) => batches.read(page('a', i), 0));
    expect(sent.map((s) => s.tasks.length)).toEqual([1]);
    sent[0]!.answer([rowsOf(sent[0]!.tasks[0]!)]);
    await tick();
    expect(sent.map((s) => s.tasks.length)).toEqual([1, MAX_BATCH]);
    sent[1]!.answer(sent[1]!.tasks.map(rowsOf));
    await tick();
    expect(sent.map((s) => s.tasks.length)).toEqual([1, MAX_BATCH, 3]);
    sent[2]!.answer(sent[2]!.tasks.map(rowsOf));
    expect((await Promise.all(reads)).map((r) => r.rowsJson[0])).toEqual(Array.from({ length: MAX_BATCH + 4 }, (_, i) => `[${i}]`));
  });

  it('fails only the page whose answer is an error, and every page of a batch whose worker failed', async () => {
    const { lanes, sent } = scriptedLanes();
    const batches = new WindowBatches(lanes, 1);
    const first = batches.read(page('a', 0), 0);
    const second = [batches.read(page('a', 1), 0), batches.read(page('a', 2), 0)];
    sent[0]!.fail(new SluiceError('INTERNAL', 'The worker running this task stopped unexpectedly; the task was not completed.'));
    await expect(first).rejects.toMatchObject({ code: 'INTERNAL' });
    await tick();
    sent[1]!.answer([{ ok: false, error: toErrorData(new SluiceError('ARTIFACT_CORRUPT', 'damaged')) }, rowsOf(sent[1]!.tasks[1]!)]);
    await expect(second[0]).rejects.toMatchObject({ code: 'ARTIFACT_CORRUPT', message: 'damaged' });
    expect((await second[1]!).rowsJson).toEqual(['[2]']);
    // The lane is free again after the failures.
    const third = [batches.read(page('a', 3), 0), batches.read(page('a', 4), 0)];
    await tick();
    expect(sent.slice(2).map((s) => s.tasks.length)).toEqual([1]);
    sent[2]!.answer([rowsOf(sent[2]!.tasks[0]!)]);
    await tick();
    sent[3]!.fail(new Error('lost'));
    await expect(third[0]).resolves.toMatchObject({ rowsJson: ['[3]'] });
    await expect(third[1]).rejects.toThrow('lost');
  });

  it('sends a forget to the lane the key picks, behind the pages queued there before it', async () => {
    const { lanes, sent } = scriptedLanes();
    const batches = new WindowBatches(lanes, 2);
    const first = batches.read(page('a', 1), 3);
    const second = [batches.read(page('a', 2), 3), batches.read(page('b', 3), 3)];
    const forgotten = batches.forget(['a'], 7);
    const after = batches.read(page('a', 4), 3);
    expect(batches.waiting).toBe(3);
    sent[0]!.answer([rowsOf(sent[0]!.tasks[0]!)]);
    await first;
    await tick();
    // The pages before the forget go first, together; the one after it waits for the forget.
    expect(sent.map((s) => [s.kind, s.lane, s.tasks.map((t) => t.from), s.keys])).toEqual([
      ['one', 1, [1], []],
      ['many', 1, [2, 3], []],
    ]);
    sent[1]!.answer(sent[1]!.tasks.map(rowsOf));
    await Promise.all(second);
    await tick();
    expect(sent.slice(2).map((s) => [s.kind, s.lane, s.keys])).toEqual([['forget', 1, ['a']]]);
    sent[2]!.answer([]);
    await forgotten;
    await tick();
    expect(sent.slice(3).map((s) => [s.kind, s.tasks.map((t) => t.from)])).toEqual([['one', [4]]]);
    sent[3]!.answer([rowsOf(sent[3]!.tasks[0]!)]);
    expect((await after).rowsJson).toEqual(['[4]']);
  });

  it('tries each page of a batch that failed as a whole on its own, so one bad page fails alone', async () => {
    const { lanes, sent } = scriptedLanes();
    const batches = new WindowBatches(lanes, 1);
    const first = batches.read(page('a', 0), 0);
    const rest = [batches.read(page('a', 1), 0), batches.read(page('b', 2), 0)];
    sent[0]!.answer([rowsOf(sent[0]!.tasks[0]!)]);
    await first;
    await tick();
    sent[1]!.fail(new SluiceError('INTERNAL', 'The worker running this task stopped unexpectedly; the task was not completed.'));
    await tick();
    expect(sent.slice(2).map((s) => [s.kind, s.tasks.map((t) => t.from)])).toEqual([['one', [1]], ['one', [2]]]);
    sent[2]!.fail(new SluiceError('INTERNAL', 'The worker running this task stopped unexpectedly; the task was not completed.'));
    sent[3]!.answer([rowsOf(sent[3]!.tasks[0]!)]);
    await expect(rest[0]).rejects.toMatchObject({ code: 'INTERNAL' });
    expect((await rest[1]!).rowsJson).toEqual(['[2]']);
  });

  it('fails every queued page and forget once its worker pool is closed, and frees the lane each time', async () => {
    const { lanes, sent, close } = scriptedLanes();
    const batches = new WindowBatches(lanes, 1);
    const first = batches.read(page('a', 0), 0);
    const queued = [batches.read(page('a', 1), 0), batches.read(page('a', 2), 0)];
    const forgotten = batches.forget(['a'], 0);
    close();
    sent[0]!.fail(new SluiceError('INTERNAL', 'The server is shutting down.'));
    await expect(first).rejects.toMatchObject({ code: 'INTERNAL' });
    for (const read of queued) await expect(read).rejects.toMatchObject({ message: 'The server is shutting down.' });
    await expect(forgotten).rejects.toMatchObject({ message: 'The server is shutting down.' });
    await expect(batches.read(page('a', 3), 0)).rejects.toMatchObject({ message: 'The server is shutting down.' });
    expect(batches.waiting).toBe(0);
  });
});
