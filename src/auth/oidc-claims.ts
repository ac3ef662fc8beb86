/**
 * A verified token's claims as a Principal: the principal claim behind the
 * configured prefix, the roles Sluice knows among those claimed (none known,
 * or no claim: the default roles), and the datasources claimed (no claim:
 * all, as for a static token without `datasources`). A claim of the wrong
 * shape refuses the token rather than guessing. The verified claims stay on
 * the principal for the datasources whose row-level scope reads them.
 */
import type { JWTPayload } from 'jose';
import { CONTROL_CHARACTERS, type OidcSetting } from '../config.ts';
import { SluiceError } from '../errors.ts';
import { ROLES, type Role } from '../vocabulary.ts';
import { claimValue } from './claim-value.ts';
import { highestRole, type Principal } from './principals.ts';

/** The longest principal claim accepted, in characters. */
export const MAX_OIDC_PRINCIPAL = 200;

function refused(sentence: string): SluiceError {
  return new SluiceError('UNAUTHORIZED', `The token was refused: ${sentence}`);
}

/** A list of names: an array of strings, or one string of names separated by spaces. */
function names(payload: JWTPayload, name: string): string[] | undefined {
  const value = claimValue(payload, name);
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value.split(/\s+/).filter((v) => v !== '');
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
  throw refused(`its ${name} claim must be a list of names (an array of strings, or one string).`);
}

function principalId(payload: JWTPayload, setting: OidcSetting): string {
  const name = setting.claims.principal;
  const value = claimValue(payload, name);
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
  // The verified claims go with the principal: a datasource's row-level scope reads its settings from them.
  return { id, role: highestRole(roles), roles, datasources: [...new Set(datasources)], auth: 'oidc', claims: payload };
}
