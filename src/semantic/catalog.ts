/**
 * The loaded explores as a caller sees them: only explores whose roles and
 * datasource the caller may use, and field ids resolved exactly (a field
 * that does not exist is an error that names it, never a guess).
 */
import { hasRole, mayUseDatasource, type Principal } from '../auth/principals.ts';
import { SluiceError } from '../errors.ts';
import type { FieldKind } from '../vocabulary.ts';
import type { DimensionDef, ExploreDef, MetricDef, TimeGrain } from './model-schema.ts';

export type ResolvedField =
  | { id: string; kind: 'dimension'; def: DimensionDef; grain: TimeGrain | null; type: DimensionDef['type'] }
  | { id: string; kind: 'metric'; def: MetricDef; type: 'number' };

export interface FieldInfo {
  id: string;
  kind: FieldKind;
  type: string;
  label?: string;
  description?: string;
}

export class SemanticCatalog {
  readonly #explores: Map<string, ExploreDef>;

  constructor(explores: ExploreDef[]) {
    this.#explores = new Map(explores.map((e) => [e.name, e]));
  }

  get size(): number {
    return this.#explores.size;
  }

  #mayUse(principal: Principal, explore: ExploreDef): boolean {
    const roleOk = explore.access === undefined || explore.access.roles.some((r) => hasRole(principal, r) && principal.role === r) || explore.access.roles.includes(principal.role);
    return roleOk && mayUseDatasource(principal, explore.datasource);
  }

  visible(principal: Principal): ExploreDef[] {
    return [...this.#explores.values()].filter((e) => this.#mayUse(principal, e));
  }

  /** An explore the caller may use; one it may not is as absent as one that does not exist. */
  explore(principal: Principal, name: string, source: number | null): ExploreDef {
    const explore = this.#explores.get(name);
    if (explore === undefined || !this.#mayUse(principal, explore)) {
      throw new SluiceError('NOT_FOUND', `No explore "${name}" is available to this caller${source === null ? '' : ` (source ${source})`}; GET /api/semantic/explores lists the ones that are.`, {
        explore: name,
        source,
      });
    }
    return explore;
  }

  /** The field `id` names in `explore`, or why none: a field that does not exist is never guessed. */
  resolve(explore: ExploreDef, id: string): ResolvedField | { why: string } {
    const [owner, name, extra] = id.split('.');
    if (owner !== explore.name || name === undefined || extra !== undefined) return { why: `field "${id}" is not a field of explore "${explore.name}" (field ids look like ${explore.name}.<field>).` };
    const dimension = explore.dimensions.find((d) => d.name === name);
    if (dimension) return { id, kind: 'dimension', def: dimension, grain: null, type: dimension.type };
    const metric = explore.metrics.find((m) => m.name === name);
    if (metric) return { id, kind: 'metric', def: metric, type: 'number' };
    for (const d of explore.dimensions) {
      for (const grain of d.timeGrains ?? []) {
        if (name === `${d.name}_${grain}`) return { id, kind: 'dimension', def: d, grain, type: d.type };
      }
    }
    return { why: `field "${id}" does not exist in explore "${explore.name}".` };
  }

  fields(explore: ExploreDef): FieldInfo[] {
    const info = (id: string, kind: FieldInfo['kind'], type: string, f: { label?: string | undefined; description?: string | undefined }): FieldInfo => ({
      id,
      kind,
      type,
      ...(f.label ? { label: f.label } : {}),
      ...(f.description ? { description: f.description } : {}),
    });
    return [
      ...explore.dimensions.flatMap((d) => [
        info(`${explore.name}.${d.name}`, 'dimension', d.type, d),
        ...(d.timeGrains ?? []).map((g) => info(`${explore.name}.${d.name}_${g}`, 'dimension', `${d.type} (${g})`, d)),
      ]),
      ...explore.metrics.map((m) => info(`${explore.name}.${m.name}`, 'metric', m.type, m)),
    ];
  }
}
