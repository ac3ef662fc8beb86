/**
 * Stopping a statement that is still running, on an engine that declares
 * `capabilities.cancel`: the stopper an export hands out ends it with
 * QUERY_CANCELLED long before the statement would have ended, the
 * duration cap ends it with QUERY_TIMEOUT, the engine itself stops (it
 * lists nothing still running), and the export half serves the next
 * export. An engine that declares no cancel skips these with the
 * capability named.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { skipNote } from '../helpers/skip-note.ts';
import { failureOf } from './contract-export.ts';
import type { ContractContext } from './driver-contract.ts';

/**
 * The fixture's statement sleeps about 30 s; a stop that works answers well
 * before that. Half of it leaves room for a loaded machine (an engine whose
 * statements run in a process of their own starts one first) while still
 * telling a stop from a statement that ran to its end.
 */
const PROMPT_MS = 15_000;
const POLL_MS = 50;

async function waitFor(what: string, condition: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export function stopCases({ name, fixture, under, exports, paths }: ContractContext): void {
  const cancellable = under.driver.capabilities.cancel;
  const title = (text: string) => skipNote(!cancellable, text, `${name} declares capabilities.cancel = false`);
  const running = async (marker: string) => (await under.admin(fixture.cancel.running(marker))).length;
  const marker = () => `driver_contract_${randomUUID().replaceAll('-', '')}`;

  for (const path of paths) {
    it.skipIf(!cancellable)(title(`a cancel stops the statement on the engine at once (${path.label})`), async () => {
      const tag = marker();
      let stop: ((reason: 'cancel') => void) | undefined;
      const { sql, params } = path.bind(fixture.cancel.sleep(tag));
      const outcome = failureOf(exports.run(under, sql, { params, onStopper: (stopper) => (stop = stopper) }));
      // The statement has reached the engine, and the export has handed over its stop, before it is stopped there.
      await waitFor('the statement runs on the engine', async () => stop !== undefined && (await running(tag)) === 1);
      const stoppedAt = Date.now();
      stop!('cancel');
      const error = await outcome;
      expect(error.code, error.message).toBe('QUERY_CANCELLED');
      expect(Date.now() - stoppedAt).toBeLessThan(PROMPT_MS);
      await waitFor('the engine no longer runs the statement', async () => (await running(tag)) === 0, PROMPT_MS);
      // The export half's session is in step again: the next export on it runs.
      const next = await exports.run(under, fixture.numbers.sql, { limits: { maxRows: 3 } });
      expect(next.result).toMatchObject({ rows: 3, cappedBy: 'maxRows' });
    });

    it.skipIf(!cancellable)(title(`the duration cap stops a statement that returns no row with QUERY_TIMEOUT (${path.label})`), async () => {
      const tag = marker();
      const { sql, params } = path.bind(fixture.cancel.sleep(tag));
      const startedAt = Date.now();
      const error = await failureOf(exports.run(under, sql, { params, limits: { maxDurationMs: 500 } }));
      expect(error.code, error.message).toBe('QUERY_TIMEOUT');
      expect(Date.now() - startedAt).toBeLessThan(PROMPT_MS);
      await waitFor('the engine no longer runs the statement', async () => (await running(tag)) === 0, PROMPT_MS);
    });
  }
}
