/**
 * sluice://artifacts/{id}: the resource an MCP tool result links to, served
 * by resources/read as the artifact's first page (at most 50 rows), under
 * the same size budget as a tool result.
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Principal } from '../auth/principals.ts';
import { pageRows, readArtifactPage } from '../artifacts/read-page.ts';
import { boundResult } from '../ai/tools/bound-result.ts';
import { cutLongCells } from '../columns/cell-cut.ts';
import { MODEL_ROWS } from '../ai/tools/tool-schemas.ts';
import { SluiceError } from '../errors.ts';
import type { ArtifactStore } from '../artifacts/types.ts';
import type { CursorCodec } from '../artifacts/cursor.ts';
import type { QueryService } from '../query/query-service.ts';

const ARTIFACT_URI = /^sluice:\/\/artifacts\/(art_[A-Za-z0-9]+)$/;

export function registerArtifactResource(server: McpServer, deps: { store: ArtifactStore; cursors: CursorCodec; queries: QueryService; maxChars: number }, principal: Principal): void {
  server.registerResource(
    'artifact',
    new ResourceTemplate('sluice://artifacts/{id}', { list: undefined }),
    { description: `A stored query result: the first page of rows (at most ${MODEL_ROWS}).`, mimeType: 'application/json' },
    async (uri) => {
      const id = ARTIFACT_URI.exec(uri.href)?.[1];
      if (id === undefined) throw new SluiceError('NOT_FOUND', 'Not a Sluice artifact URI.');
      const page = await readArtifactPage(deps.store, deps.cursors, principal.id, id, { limit: MODEL_ROWS });
      const { rows, cutCells } = cutLongCells(pageRows(page.rowsJson), deps.queries.previewCellChars);
      const result = boundResult({ columns: page.columns, rows, cutCells, nextCursor: page.nextCursor }, 'rows', deps.maxChars, (r) => JSON.stringify(r).length);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(result) }] };
    },
  );
}
