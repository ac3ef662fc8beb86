/**
 * One replica in a process of its own, so a test can kill it with SIGKILL
 * at any moment. Settings come from the environment, as with `npm start`;
 * it prints one JSON line with its URL and admin token once ready.
 */
import { loadConfig } from '../../src/config.ts';
import { quietLogger } from '../../src/logger.ts';
import { startSluice } from '../../src/server.ts';

const sluice = await startSluice(loadConfig(process.env), quietLogger);
await sluice.ready;
console.log(JSON.stringify({ url: sluice.url, token: sluice.generatedToken }));
