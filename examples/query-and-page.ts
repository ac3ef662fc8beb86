/**
 * Run a query, then page through its artifact with the generated client,
 * whose calls are named by the OpenAPI document's operationIds.
 *   SLUICE_URL=http://127.0.0.1:8787 SLUICE_TOKEN=... npx tsx examples/query-and-page.ts
 */
import { createSluiceClient } from '../openapi/client/index.ts';

const client = createSluiceClient(process.env.SLUICE_URL ?? 'http://127.0.0.1:8787', process.env.SLUICE_TOKEN ?? '');

const { data: query, error } = await client.submitQuery({
  body: { sql: 'SELECT id, status, total FROM orders ORDER BY id', previewRows: 5 },
});
if (error) throw new Error(`${error.errorCode}: ${error.summary}`);
console.log(query.summary);
console.log(query.data.preview.rows);

const artifactId = query.data.artifact?.id;
if (artifactId) {
  let cursor: string | undefined;
  for (let page = 1; page <= 3; page++) {
    const { data: read, error: readError } = await client.readArtifact({
      params: { path: { id: artifactId } },
      body: { limit: 2, filters: [{ column: 'status', op: 'eq', value: 'delivered' }], ...(cursor ? { cursor } : {}) },
    });
    if (readError) throw new Error(`${readError.errorCode}: ${readError.summary}`);
    console.log(`page ${page}:`, read.data.rows);
    cursor = read.data.nextCursor ?? undefined;
    if (!cursor) break;
  }
}
