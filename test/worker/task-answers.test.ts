/**
 * A worker's answers: each task's messages up to its last, nothing after,
 * and nothing kept of a task once it is answered.
 */
import { describe, expect, it } from 'vitest';
import type { FromWorker } from '../../src/worker/protocol.ts';
import { TaskAnswers } from '../../src/worker/task-answers.ts';

describe('task answers', () => {
  it('send a task\'s progress and its end, and drop what comes after the end', () => {
    const sent: FromWorker[] = [];
    const answers = new TaskAnswers((m) => sent.push(m));
    answers.begin(1);
    answers.answer({ type: 'progress', taskId: 1, rows: 10, bytes: 100 });
    answers.answer({ type: 'done', taskId: 1, result: { rowsJson: [] } });
    answers.answer({ type: 'progress', taskId: 1, rows: 20, bytes: 200 });
    answers.answer({ type: 'failed', taskId: 1, error: { code: 'INTERNAL', message: 'late' } });
    expect(sent.map((m) => m.type)).toEqual(['progress', 'done']);
  });

  it('drop messages for a task never begun', () => {
    const sent: FromWorker[] = [];
    const answers = new TaskAnswers((m) => sent.push(m));
    answers.answer({ type: 'done', taskId: 7, result: { rowsJson: [] } });
    expect(sent).toEqual([]);
  });

  it('keep nothing of the tasks already answered, however many there were', () => {
    const answers = new TaskAnswers(() => undefined);
    for (let taskId = 1; taskId <= 100_000; taskId++) {
      answers.begin(taskId);
      answers.answer(taskId % 2 === 0 ? { type: 'done', taskId, result: { rowsJson: [] } } : { type: 'failed', taskId, error: { code: 'INTERNAL', message: 'x' } });
    }
    answers.begin(100_001);
    expect(answers.open).toBe(1);
  });
});
