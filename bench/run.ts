/**
 * `npm run bench [-- export|reads|startup|http|pages|store|kinds]`: runs the selected parts (all by
 * default), prints each figure against its target as a ratio to a baseline
 * measured in the same run, and appends a dated section to the day's log in bench/runs/ (bench/RESULTS.md holds the current figures).
 */
import { exportSection } from './export.ts';
import { httpSection } from './http.ts';
import { kindsSection } from './kinds.ts';
import { pagesSection } from './pages.ts';
import { runParts } from './lib/run-parts.ts';
import { readsSection } from './reads.ts';
import { startupSection } from './startup.ts';
import { storeSection } from './store.ts';

const PARTS = { export: exportSection, reads: readsSection, startup: startupSection, http: httpSection, store: storeSection, kinds: kindsSection, pages: pagesSection } as const;
type Part = keyof typeof PARTS;

const args = process.argv.slice(2);
const unknown = args.filter((a) => !(a in PARTS));
if (unknown.length > 0) {
  console.error(`Unknown part(s): ${unknown.join(', ')}. Usage: npm run bench [-- export] [reads] [startup] [http] [store] [kinds] [pages]`);
  process.exit(2);
}
const selected: Part[] = args.length === 0 ? ['export', 'reads', 'startup', 'http', 'pages', 'store', 'kinds'] : (args as Part[]);

const ok = await runParts(
  selected.map((part) => [part, PARTS[part]]),
  `npm run bench${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`,
);
process.exit(ok ? 0 : 1);
