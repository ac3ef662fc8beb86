/**
 * Row-level scope from claims: a datasource's claimSettings (setting name ->
 * claim name) turned into the settings one caller's queries run under. The
 * values come from the caller's verified claims only; a caller that lacks
 * one, or holds one that is not a short string, is refused on that
 * datasource before anything runs, never let through unscoped. The export
 * sets them transaction-locally, bound and never spliced (see
 * postgres/export/scope-settings.ts).
 */
import { claimValue } from '../auth/claim-value.ts';
import type { Principal } from '../auth/principals.ts';
import { SluiceError } from '../errors.ts';
import type { ScopeSetting } from '../worker/export-types.ts';

export type { ScopeSetting } from '../worker/export-types.ts';

/** The longest claim value a setting takes, in characters: scope keys are identifiers, not documents. */
export const MAX_SCOPE_VALUE = 256;

/** A datasource as far as its scope goes. */
export interface ScopedDatasource {
  id: string;
  /** Setting name -> claim name; empty when the datasource applies no scope. */
  claimSettings: Readonly<Record<string, string>>;
}

function refused(ds: ScopedDatasource, sentence: string): SluiceError {
  return new SluiceError('FORBIDDEN', `Datasource "${ds.id}" shows each caller the rows its identity provider's claims allow, and ${sentence}`, { datasource: ds.id });
}

/** The settings `principal`'s queries on `ds` run under; FORBIDDEN when a claim they need is missing or unusable. */
export function scopeFor(ds: ScopedDatasource, principal: Principal): ScopeSetting[] {
  const scope: ScopeSetting[] = [];
  for (const [name, claim] of Object.entries(ds.claimSettings)) {
    if (principal.claims === undefined) throw refused(ds, 'this caller signed in with a token that carries no claims; sign in through the identity provider.');
    const value = claimValue(principal.claims, claim);
    if (value === undefined || value === null) throw refused(ds, `this caller's token has no "${claim}" claim.`);
    if (typeof value !== 'string' || value === '') throw refused(ds, `this caller's "${claim}" claim is not a non-empty string.`);
    // PostgreSQL's text cannot hold NUL; other control characters have no place in a scope key either.
    if ([...value].length > MAX_SCOPE_VALUE || /[\u0000-\u001f\u007f]/.test(value)) {
      throw refused(ds, `this caller's "${claim}" claim is longer than ${MAX_SCOPE_VALUE} characters or holds control characters.`);
    }
    scope.push({ name, value });
  }
  return scope;
}
