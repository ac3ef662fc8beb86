import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Integration suites share one PostgreSQL and start worker threads: forks keep them apart.
    pool: 'forks',
    // The embedded database is one PostgreSQL session behind a multiplexer that keeps a
    // transaction to its own connection but interleaves the extended-protocol messages of
    // connections outside one: two files at once there fail at random. One file at a time.
    maxWorkers: process.env.TEST_DATABASE_URL ? 2 : 1,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // expect.poll waits on a server round trip (a browser test's table after a click): on a
    // loaded 2-core machine one can take over the default 1 s. 30 s is what Playwright's own
    // waits allow in the same tests; a poll that will never succeed still fails, only later.
    expect: { poll: { timeout: 30_000 } },
  },
});
