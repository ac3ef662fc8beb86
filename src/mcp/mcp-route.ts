/**
 * /mcp: the MCP endpoint (Streamable HTTP, stateless). Same authentication
 * as the API; each request gets its own server and transport, bound to the
 * caller's principal. Without a sessionIdGenerator the transport is stateless.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AppEnv } from '../auth/middleware.ts';
import { createMcpServer, type McpDeps } from './mcp-server.ts';

export function registerMcp(app: OpenAPIHono<AppEnv>, deps: McpDeps): void {
  app.all('/mcp', async (c) => {
    const server = createMcpServer(deps, c.get('principal'));
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      void server.close();
    }
  });
}
