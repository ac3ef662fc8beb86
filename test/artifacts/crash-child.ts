/**
 * A store process that kills itself (SIGKILL, no clean-up of any kind) at a
 * chosen point. It first commits one artifact and prints its id, so the
 * parent can check that what was committed survives.
 */
import { openStore } from '../../src/artifacts/store/open-store.ts';
import { loadConfig } from '../../src/config.ts';
import { quietLogger } from '../../src/logger.ts';
import { createFixtures } from './store-fixtures.ts';

const [dataDir, point] = process.argv.slice(2) as [string, string];
const die = () => process.kill(process.pid, 'SIGKILL');
let armed = false;
const fixtures = await createFixtures();
const { store, catalog } = openStore(loadConfig({ SLUICE_DATA_DIR: dataDir }), {
  workers: fixtures.workers,
  log: quietLogger,
  // Collection spares bytes released within the grace period: this process lives a day ahead.
  now: () => new Date(Date.now() + (armed && point === 'collect:after-delete' ? 86_400_000 : 0)),
  checkpoint: (step) => {
    if (armed && step === point) die();
  },
});
await catalog.opened;
const owner = { principal: 'alice', sessionId: 'default' };
const commit = async (sql: string, session = 'default') => {
  const staged = await fixtures.stage(store, sql);
  return staged.staging.commit({ ...owner, sessionId: session }, staged, 3 * 86_400);
};
const keeper = await commit('select g::int8 as id from generate_series(1, 5000) g');
if (keeper.decision !== 'CREATED') throw new Error('keeper not created');
console.log(JSON.stringify({ keeper: keeper.artifact.id }));

if (point === 'export') {
  armed = true;
  setTimeout(die, 400);
  // Long enough to be killed in the middle on either database; the embedded one is slower, and runs the
  // statement to its end after the kill (see crash-safety.test.ts), so it gets fewer rows.
  const rows = process.env.SLUICE_TEST_EMBEDDED === '1' ? 2_000_000 : 20_000_000;
  await fixtures.stage(store, `select g::int8 as id, md5(g::text) as h from generate_series(1, ${rows}) g`);
} else if (point === 'commit:after-upload') {
  armed = true;
  await commit('select 42::int8 as answer');
} else if (point === 'collect:after-delete') {
  const doomed = await commit('select 7::int8 as seven', 'other');
  if (doomed.decision === 'CREATED') await store.delete('alice', doomed.artifact.id);
  armed = true;
  await store.collect({ maxBlobs: 10, maxBytes: 1e12 });
} else if (point === 'copy') {
  armed = true;
  for (let i = 0; ; i++) {
    if (i === 50) setTimeout(die, 0);
    await store.copySession('alice', 'default', `copy-${i}`, 3 * 86_400);
    // Lets the timer that kills this process run between copies.
    await new Promise((r) => setImmediate(r));
  }
}
console.log('not killed');
process.exit(3);
