/**
 * Who a server lets in and the key its read cursors are signed with: the
 * configured tokens, or the admin token generated in the data dir, and the
 * identity provider's JWTs when one is configured. Replicas
 * on one catalog share the cursor key and the generated admin token through
 * it; until it answers, no generated token is accepted (none of this
 * replica's own could be right for the others).
 */
import type { Catalog } from './catalog/catalog.ts';
import { CursorCodec } from './artifacts/cursor.ts';
import { Authenticator } from './auth/authenticator.ts';
import { TokenDirectory } from './auth/principals.ts';
import { loadSecrets, type Secrets } from './auth/secrets.ts';
import type { Config } from './config.ts';

export interface ServerAccess {
  readonly secrets: Secrets;
  /** A shared catalog is configured: the secrets replicas share come from it. */
  readonly shareSecrets: boolean;
  readonly tokens: TokenDirectory;
  /** The tokens, and with SLUICE_OIDC_ISSUER the identity provider's JWTs. */
  readonly auth: Authenticator;
  readonly cursors: CursorCodec;
  /** The generated admin token, when no tokens were configured (with a shared catalog, known once it answers). */
  generatedToken: string | null;
}

/** The identity provider's verifier (and jose with it) is loaded only when SLUICE_OIDC_ISSUER names one. */
export async function loadAccess(config: Config, dataDir: string, log: (line: string) => void): Promise<ServerAccess> {
  const { secrets } = loadSecrets(dataDir);
  const shareSecrets = config.catalogUrl !== undefined;
  const generatedToken = config.tokens === undefined && !shareSecrets ? secrets.adminToken : null;
  const tokens = new TokenDirectory(config.tokens ?? (shareSecrets ? [] : [{ token: secrets.adminToken, principal: 'admin', roles: ['admin'] }]));
  const oidc = config.oidc === undefined ? null : new (await import('./auth/oidc-verifier.ts')).OidcVerifier(config.oidc, log);
  const auth = new Authenticator(tokens, oidc);
  return { secrets, shareSecrets, tokens, auth, cursors: new CursorCodec(secrets.cursorKey), generatedToken };
}

/** Takes the cursor key every replica uses and, when no tokens are configured, the admin token every replica accepts. */
export async function adoptSharedSecrets(access: ServerAccess, catalog: Catalog, tokensConfigured: boolean): Promise<void> {
  access.cursors.useKey(await catalog.sharedSecret('cursor-key', () => access.secrets.cursorKey));
  if (tokensConfigured) return;
  access.generatedToken = await catalog.sharedSecret('admin-token', () => access.secrets.adminToken);
  access.tokens.add({ token: access.generatedToken, principal: 'admin', roles: ['admin'] });
}
