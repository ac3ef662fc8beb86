/**
 * `npm run openapi`: writes the OpenAPI document the server serves at
 * /openapi.json to openapi/openapi.json, and its operation table (method and
 * path by operationId) to openapi/client/operations.ts; the script then has
 * openapi-typescript write openapi/client/schema.d.ts.
 * test/openapi/openapi-file.test.ts fails when a checked-in file and the
 * served document differ.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetchServedDocument, formatDocument, OPENAPI_FILE, OPERATIONS_FILE, operationsOf, renderOperationsModule } from './openapi-document.ts';

const { document } = await fetchServedDocument();
const file = fileURLToPath(OPENAPI_FILE);
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, formatDocument(document));
const paths = Object.keys((document.paths ?? {}) as Record<string, unknown>).length;
console.log(`Wrote ${relative(process.cwd(), file) || file} (OpenAPI ${String(document.openapi)}, ${paths} paths).`);
const operationsFile = fileURLToPath(OPERATIONS_FILE);
mkdirSync(dirname(operationsFile), { recursive: true });
writeFileSync(operationsFile, renderOperationsModule(document));
console.log(`Wrote ${relative(process.cwd(), operationsFile) || operationsFile} (${operationsOf(document).length} operations).`);
