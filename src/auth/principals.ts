/**
 * Who a token belongs to and what it may do. Roles nest: reader < analyst <
 * admin; a token without roles is an analyst. Comparison of tokens is by
 * hash in a map, so lookup time does not depend on how much of a guess matches.
 */
import { createHash } from 'node:crypto';
import type { TokenSetting } from '../config.ts';

export type { Role } from '../vocabulary.ts';
import type { AuthKind, Role } from '../vocabulary.ts';

export interface Principal {
  id: string;
  /** The highest of `roles`: what requireRole compares. */
  role: Role;
  /** The roles granted, as configured or claimed. */
  roles: Role[];
  /** Datasource ids this principal may use; '*' for all. */
  datasources: string[];
  auth: AuthKind;
  /**
   * The verified claims of an identity provider's token, which a datasource's
   * claimSettings read; a static token has none (the contract gives it none).
   */
  claims?: Readonly<Record<string, unknown>>;
}

const RANK: Record<Role, number> = { reader: 0, analyst: 1, admin: 2 };

export function hasRole(principal: Principal, needed: Role): boolean {
  return RANK[principal.role] >= RANK[needed];
}

/** The highest of the roles granted; reader when none is. */
export function highestRole(roles: readonly Role[]): Role {
  return roles.reduce<Role>((best, r) => (RANK[r] > RANK[best] ? r : best), 'reader');
}

export function mayUseDatasource(principal: Principal, datasource: string): boolean {
  return principal.datasources.includes('*') || principal.datasources.includes(datasource);
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export class TokenDirectory {
  readonly #byDigest = new Map<string, Principal>();

  constructor(tokens: TokenSetting[]) {
    for (const t of tokens) this.add(t);
  }

  /** Adds a token: the generated admin token of replicas is known only once their shared catalog answers. */
  add(t: TokenSetting): void {
    const roles = [...new Set<Role>(t.roles ?? ['analyst'])];
    this.#byDigest.set(digest(t.token), { id: t.principal, role: highestRole(roles), roles, datasources: t.datasources ?? ['*'], auth: 'token' });
  }

  lookup(token: string): Principal | undefined {
    return this.#byDigest.get(digest(token));
  }
}
