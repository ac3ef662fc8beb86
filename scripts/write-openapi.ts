/**
 * `npm run openapi`: writes the OpenAPI document the server serves at
 * /openapi.json to openapi/openapi.json. test/openapi/openapi-file.test.ts
 * fails when the checked-in file and the served document differ.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetchServedDocument, formatDocument, OPENAPI_FILE } from './openapi-document.ts';

const { document } = await fetchServedDocument();
const file = fileURLToPath(OPENAPI_FILE);
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, formatDocument(document));
const paths = Object.keys((document.paths ?? {}) as Record<string, unknown>).length;
console.log(`Wrote ${relative(process.cwd(), file) || file} (OpenAPI ${String(document.openapi)}, ${paths} paths).`);
