/**
 * Loads every *.yml / *.yaml file in the models directory at start and
 * refuses to start on an invalid one, naming the file, the explore and the
 * field. A missing directory means no semantic model (the routes then list
 * nothing), not an error.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ModelFile, type ExploreDef } from './model-schema.ts';

export class ModelError extends Error {}

function where(file: string, doc: unknown, path: PropertyKey[]): string {
  const parts = [`${file}`];
  if (path[0] === 'explores' && typeof path[1] === 'number') {
    const explore = (doc as { explores?: { name?: unknown }[] })?.explores?.[path[1]];
    parts.push(`explore ${typeof explore?.name === 'string' ? `"${explore.name}"` : `#${path[1] + 1}`}`);
    if ((path[2] === 'dimensions' || path[2] === 'metrics') && typeof path[3] === 'number') {
      const field = (explore as Record<string, { name?: unknown }[]> | undefined)?.[path[2]]?.[path[3]];
      parts.push(`${path[2] === 'dimensions' ? 'dimension' : 'metric'} ${typeof field?.name === 'string' ? `"${field.name}"` : `#${path[3] + 1}`}`);
      if (path.length > 4) parts.push(`field "${path.slice(4).join('.')}"`);
    } else if (path.length > 2) parts.push(`field "${path.slice(2).join('.')}"`);
  }
  return parts.join(', ');
}

export function loadModels(dir: string): ExploreDef[] {
  if (!existsSync(dir)) return [];
  const explores: ExploreDef[] = [];
  const seen = new Map<string, string>();
  for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
    let doc: unknown;
    try {
      doc = parse(readFileSync(join(dir, file), 'utf8'));
    } catch (error) {
      throw new ModelError(`${file}: not valid YAML: ${(error as Error).message.split('\n')[0]}`);
    }
    const result = ModelFile.safeParse(doc);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      throw new ModelError(`${where(file, doc, issue.path)}: ${issue.message}`);
    }
    for (const explore of result.data.explores) {
      const other = seen.get(explore.name);
      if (other !== undefined) throw new ModelError(`${file}, explore "${explore.name}": the name is already used in ${other}`);
      seen.set(explore.name, file);
      checkExplore(file, explore);
      explores.push(explore);
    }
  }
  return explores;
}

function checkExplore(file: string, explore: ExploreDef): void {
  const names = new Set<string>();
  for (const field of [...explore.dimensions, ...explore.metrics]) {
    if (names.has(field.name)) throw new ModelError(`${file}, explore "${explore.name}", field "${field.name}": defined twice`);
    names.add(field.name);
  }
  for (const d of explore.dimensions) {
    if (d.timeGrains && d.type !== 'date' && d.type !== 'timestamp') {
      throw new ModelError(`${file}, explore "${explore.name}", dimension "${d.name}": timeGrains need a date or timestamp dimension`);
    }
  }
  for (const rf of explore.requiredFilters ?? []) {
    const [owner, field] = rf.field.split('.');
    if (owner !== explore.name || !explore.dimensions.some((d) => d.name === field)) {
      throw new ModelError(`${file}, explore "${explore.name}", requiredFilters field "${rf.field}": not a dimension of this explore`);
    }
  }
  const params = new Set((explore.parameters ?? []).map((p) => p.name));
  for (const placeholder of (explore.sql ?? '').matchAll(/\{\{\s*([a-z][a-z0-9_]*)\s*\}\}/g)) {
    if (!params.has(placeholder[1]!)) throw new ModelError(`${file}, explore "${explore.name}", sql: placeholder {{${placeholder[1]}}} is not a declared parameter`);
  }
}
