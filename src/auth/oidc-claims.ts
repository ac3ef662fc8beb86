/**
 * A verified token's claims as a Principal: the principal claim behind the
 * configured prefix, the roles Sluice knows among those claimed (none known,
 * or no claim: the default roles), and the datasources claimed (no claim:
 * all, as for a static token without `datasources`). A claim of the wrong
 * shape refuses the token rather than guessing.
 */
import type { JWTPayload } from 'jose';
import { CONTROL_CHARACTERS, type OidcSetting } from '../config.ts';
import { SluiceError } from '../errors.ts';
import { ROLES, type Role } from '../vocabulary.ts';
import { highestRole, type Principal } from './principals.ts';

/** The longest principal claim accepted, in characters. */
export const MAX_OIDC_PRINCIPAL = 200;

function refused(sentence: string): SluiceError {
  return new SluiceError('UNAUTHORIZED', `The token was refused: ${sentence}`);
}

/** A claim by its exact name (namespaced claims hold dots), else by a dotted path into nested objects. */
function claim(payload: JWTPayload, name: string): unknown {
  if (Object.hasOwn(payload, name)) return payload[name];
  let value: unknown = payload;
  for (const step of name.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, step)) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

/** A list of names: an array of strings, or one string of names separated by spaces. */
function names(payload: JWTPayload, name: string): string[] | undefined {
  const value = claim(payload, name);
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value.split(/\s+/).filter((v) => v !== '');
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
  throw refused(`its ${name} claim must be a list of names (an array of strings, or one string).`);
}

function principalId(payload: JWTPayload, setting: OidcSetting): string {
  const name = setting.claims.principal;
  const value = claim(payload, name);
  if (typeof value !== 'string' || value === '') throw refused(`it has no ${name} claim (a non-empty string) to name the caller.`);
  if ([...value].length > MAX_OIDC_PRINCIPAL) throw refused(`its ${name} claim is longer than ${MAX_OIDC_PRINCIPAL} characters.`);
  if (CONTROL_CHARACTERS.test(value)) throw refused(`its ${name} claim holds a control character.`);
  return `${setting.principalPrefix}${value}`;
}

export function principalFromClaims(payload: JWTPayload, setting: OidcSetting): Principal {
  const id = principalId(payload, setting);
  // Names Sluice does not know are ignored (a groups claim holds many); none known is the same as no claim.
  const known = (names(payload, setting.claims.roles) ?? []).filter((r): r is Role => (ROLES as readonly string[]).includes(r));
  const roles = known.length > 0 ? [...new Set(known)] : [...setting.defaultRoles];
  const datasources = names(payload, setting.claims.datasources) ?? ['*'];
  return { id, role: highestRole(roles), roles, datasources: [...new Set(datasources)], auth: 'oidc' };
}
