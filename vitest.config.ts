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
  },
});
