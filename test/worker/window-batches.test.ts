/**
 * How the API thread sends pages of windows to the read workers
 * (window-batches.ts): one batch in flight a worker, the pages that wait for
 * it sent together, each answered or failed on its own. The lanes here are
 * scripted so that the test decides when a worker answers; the workers'
 * own side is test/worker/row-windows.test.ts, and both together run in
 * test/artifacts/store/page-reads.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { SluiceError, toErrorData } from '../../src/errors.ts';
import type { Settled, WindowResult, WindowTask } from '../../src/worker/protocol.ts';
import { MAX_BATCH, WindowBatches, type WindowLanes } from '../../src/worker/window-batches.ts';

interface Sent {
  lane: number;
  tasks: WindowTask[];
  answer: (answers: Settled<WindowResult>[]) => void;
  fail: (error: Error) => void;
}

/** Lanes that hold every batch until the test answers it. */
function scriptedLanes(): { lanes: WindowLanes; sent: Sent[]; forgotten: { keys: string[]; lane: number }[] } {
  const sent: Sent[] = [];
  const forgotten: { keys: string[]; lane: number }[] = [];
  const lanes: WindowLanes = {
    one: (task, lane) =>
      new Promise((resolve, reject) => {
        sent.push({ lane, tasks: [task], answer: (answers) => (answers[0]!.ok ? resolve(answers[0]!.value) : reject(new Error('failed'))), fail: reject });
      }),
    many: (tasks, lane) => new Promise((resolve, reject) => sent.push({ lane, tasks, answer: resolve, fail: reject })),
    forget: async (keys, lane) => void forgotten.push({ keys, lane }),
  };
  return { lanes, sent, forgotten };
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

  it('sends a forget to the worker whose lane the key picks', async () => {
    const { lanes, forgotten } = scriptedLanes();
    await new WindowBatches(lanes, 2).forget(['k'], 7);
    expect(forgotten).toEqual([{ keys: ['k'], lane: 1 }]);
  });
});
