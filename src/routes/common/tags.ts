/**
 * The tags of the OpenAPI document: the one list routes name their group
 * from and the document declares at its top (generators turn each into a
 * section or a service class, so each carries a description).
 */
export const API_TAGS = [
  { name: 'System', description: 'Liveness and readiness; no token needed.' },
  { name: 'Queries', description: 'Run read-only SQL: a bounded preview, exact completeness, and an artifact holding the whole result. Poll and cancel.' },
  { name: 'Artifacts', description: 'Stored results: describe, page (projection, filters, sort), aggregate, download and delete.' },
  { name: 'Identity', description: 'Who the caller is: principal, roles, datasources, how it signed in, and its usage.' },
  { name: 'Sessions', description: 'Artifacts grouped by session: list, copy references, retire, export and import as a portable bundle, and usage against quotas.' },
  { name: 'Schema', description: 'Datasources and their tables, views and columns.' },
  { name: 'AI', description: 'Chat about SQL and a read-only agent (analyst role); 503 AI_NOT_CONFIGURED without a model.' },
  { name: 'Admin', description: 'Workspace-wide records for administrators (admin role): the audit trail.' },
  { name: 'Semantic', description: 'Explores, metric and merge queries compiled to one statement, and saved visualizations (analyst role).' },
  { name: 'Maintenance', description: 'Admins: a collection round on request, and a check of the catalog against the stored bytes.' },
] as const;

export type ApiTag = (typeof API_TAGS)[number]['name'];

/** A route's `tags`, checked against the declared list. */
export function tagged(tag: ApiTag): [ApiTag] {
  return [tag];
}
