/**
 * Who a request comes from: a configured token (X-Token, or Authorization:
 * Bearer), and with an identity provider configured, a JWT it signed
 * (Authorization: Bearer). A static token is looked up first, so one that
 * happens to hold dots still works; anything shaped like a JWT that is not
 * a static token is verified as one.
 */
import { SluiceError } from '../errors.ts';
import { looksLikeJwt } from './jwt-shape.ts';
import type { OidcVerifier } from './oidc-verifier.ts';
import type { Principal, TokenDirectory } from './principals.ts';

export interface Credentials {
  xToken: string | undefined;
  authorization: string | undefined;
}

export class Authenticator {
  readonly tokens: TokenDirectory;
  readonly #oidc: OidcVerifier | null;

  constructor(tokens: TokenDirectory, oidc: OidcVerifier | null) {
    this.tokens = tokens;
    this.#oidc = oidc;
  }

  async identify({ xToken, authorization }: Credentials): Promise<Principal> {
    const bearer = authorization?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
    const token = xToken?.trim() ?? bearer ?? authorization?.trim();
    const principal = token ? this.tokens.lookup(token) : undefined;
    if (principal !== undefined) return principal;
    if (this.#oidc !== null && xToken === undefined && bearer !== undefined && looksLikeJwt(bearer)) return this.#oidc.verify(bearer);
    const how = this.#oidc === null ? '' : ', or an identity provider\u2019s JWT in Authorization: Bearer <jwt>';
    throw new SluiceError('UNAUTHORIZED', `Send a valid token in the X-Token header (or Authorization: Bearer <token>)${how}.`);
  }
}
