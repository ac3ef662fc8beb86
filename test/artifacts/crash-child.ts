/**
 * A store process that kills itself (SIGKILL, no clean-up of any kind) at a
 * chosen point. It first commits one artifact and prints its id, so the
 * parent can check that what was committed survives.
 */
import { createLocalStore } from '../../src/artifacts/drivers/local.ts';
import { createFixtures } from './store-fixtures.ts';

const [dataDir, point] = process.argv.slice(2) as [string, string];
const die = () => process.kill(process.pid, 'SIGKILL');
let armed = false;
const fixtures = await createFixtures();
const store = createLocalStore({
  dataDir,
  workers: fixtures.workers,
  principalQuotaBytes: 1e12,
  workspaceQuotaBytes: 1e12,
  checkpoint: (step) => {
    if (armed && step === point) die();
  },
});
const keeper = store.commit({ principal: 'alice', sessionId: 'default' }, await fixtures.stage(store, 'select g::int8 as id from generate_series(1, 5000) g'), 3600);
if (keeper.decision !== 'CREATED') throw new Error('keeper not created');
console.log(JSON.stringify({ keeper: keeper.artifact.id }));
armed = true;

if (point === 'export') {
  setTimeout(die, 400);
  await fixtures.stage(store, 'select g::int8 as id, md5(g::text) as h from generate_series(1, 20000000) g');
} else if (point === 'commit:after-rename') {
  store.commit({ principal: 'alice', sessionId: 'default' }, await fixtures.stage(store, 'select 42::int8 as answer'), 3600);
} else if (point === 'collect:after-rename') {
  const doomed = store.commit({ principal: 'alice', sessionId: 'other' }, await fixtures.stage(store, 'select 7::int8 as seven'), 3600);
  if (doomed.decision === 'CREATED') store.delete('alice', doomed.artifact.id);
  await store.collect({ maxBlobs: 10, maxBytes: 1e12 });
} else if (point === 'copy') {
  for (let i = 0; ; i++) {
    if (i === 50) setTimeout(die, 0);
    store.copySession('alice', 'default', `copy-${i}`, 3600);
    await new Promise((r) => setImmediate(r));
  }
}
console.log('not killed');
process.exit(3);
