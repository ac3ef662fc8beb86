/**
 * `npm start`: reads the environment, starts Sluice, prints where it is and
 * how to call it, and shuts down cleanly on SIGTERM or SIGINT (running
 * queries are cancelled, staged files removed, the embedded database closed).
 */
import { loadConfig } from './config.ts';
import { startSluice } from './server.ts';

let config;
try {
  config = loadConfig(process.env);
} catch (error) {
  console.error(`Configuration error: ${(error as Error).message}`);
  process.exit(1);
}

let sluice;
try {
  sluice = await startSluice(config);
} catch (error) {
  console.error(`Sluice could not start: ${(error as Error).message}`);
  process.exit(1);
}
console.log(`Sluice listening on ${sluice.url}`);
console.log(`Console:       ${sluice.url}/console`);
console.log(`API docs:      ${sluice.url}/docs`);
console.log(`OpenAPI:       ${sluice.url}/openapi.json`);
const tokenShown = sluice.generatedToken;
if (tokenShown !== null) {
  console.log(`Admin token:   ${tokenShown}   (generated on first start, kept in ${config.dataDir}/secrets.json)`);
}

// Set by the first SIGTERM or SIGINT: from then on the process is on its way out, cleanly.
let stopping = false;

sluice.ready.then(
  () => {
    // Replicas on one catalog learn their shared admin token once the catalog answers.
    if (tokenShown === null && sluice.generatedToken !== null) console.log(`Admin token:   ${sluice.generatedToken}   (generated once, shared by every replica through the catalog)`);
    console.log('Ready: datasources and the artifact store are up (GET /readyz answers 200).');
  },
  (error: unknown) => {
    // A start-up that a shutdown cut short did not fail; the shutdown decides the exit code.
    if (stopping) return;
    console.error(`Start-up failed: ${(error as Error).message}`);
    process.exit(1);
  },
);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: shutting down...`);
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    sluice.stop().then(
      () => {
        console.log('Stopped.');
        process.exit(0);
      },
      (error: unknown) => {
        console.error(`Shutdown failed: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  });
}
