/**
 * What the identity provider publishes: its discovery document, fetched
 * once, lazily, on the first JWT (a failed fetch is forgotten, so the next
 * token tries again), and the key set it names, which jose caches and
 * fetches again when a token names a key it lacks (no more often than the
 * cooldown allows). Only the asymmetric algorithms the provider declares
 * are accepted: never `none`, never an HMAC (whose secret would be the
 * provider's public key).
 */
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { isTrustedIssuerUrl, type OidcSetting } from '../config.ts';
import { SluiceError } from '../errors.ts';

/** JWS algorithms with a public key: RSA, RSA-PSS, ECDSA and EdDSA. */
const ASYMMETRIC = /^(RS|PS|ES)(256|384|512)$|^EdDSA$|^Ed25519$/;
const FETCH_TIMEOUT_MS = 5_000;

export interface IssuerKeys {
  algorithms: string[];
  keys: JWTVerifyGetKey;
}

/** The provider could not be asked (down, unreachable, or answering something that is not its discovery document). */
export function issuerUnavailable(reason: string): SluiceError {
  return new SluiceError('UNAUTHORIZED', `The token could not be verified: the identity provider ${reason}; retry shortly.`, { reason: 'ISSUER_UNAVAILABLE', retryable: true });
}

export class OidcIssuer {
  readonly #setting: OidcSetting;
  readonly #log: (line: string) => void;
  #pending: Promise<IssuerKeys> | undefined;

  constructor(setting: OidcSetting, log: (line: string) => void) {
    this.#setting = setting;
    this.#log = log;
  }

  keys(): Promise<IssuerKeys> {
    this.#pending ??= this.#discover().catch((error: unknown) => {
      this.#pending = undefined;
      throw error;
    });
    return this.#pending;
  }

  async #discover(): Promise<IssuerKeys> {
    const where = `${this.#setting.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    let response: Response;
    try {
      response = await fetch(where, { redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: 'application/json' } });
    } catch {
      this.#log(`OIDC: ${where} cannot be reached; the next JWT tries again.`);
      throw issuerUnavailable('cannot be reached');
    }
    const doc = response.status === 200 ? ((await response.json().catch(() => null)) as Record<string, unknown> | null) : null;
    if (doc === null || typeof doc !== 'object') {
      this.#log(`OIDC: ${where} answered HTTP ${response.status} without a discovery document; the next JWT tries again.`);
      throw issuerUnavailable('did not answer with its discovery document');
    }
    return this.#keysFrom(doc, where);
  }

  #keysFrom(doc: Record<string, unknown>, where: string): IssuerKeys {
    if (doc.issuer !== this.#setting.issuer) {
      this.#log(`OIDC: ${where} names the issuer ${JSON.stringify(doc.issuer)}, not SLUICE_OIDC_ISSUER (${this.#setting.issuer}).`);
      throw issuerUnavailable('publishes a discovery document for another issuer');
    }
    const jwksUri = typeof doc.jwks_uri === 'string' && URL.canParse(doc.jwks_uri) ? new URL(doc.jwks_uri) : undefined;
    if (jwksUri === undefined || !isTrustedIssuerUrl(jwksUri)) {
      this.#log(`OIDC: ${where} has no usable jwks_uri (an https:// URL, http:// only on loopback).`);
      throw issuerUnavailable('publishes no usable key set address (jwks_uri)');
    }
    // OpenID Connect Discovery requires the list and RS256 in it; a document without it means RS256.
    const declared = Array.isArray(doc.id_token_signing_alg_values_supported) ? doc.id_token_signing_alg_values_supported : ['RS256'];
    const algorithms = declared.filter((a): a is string => typeof a === 'string' && ASYMMETRIC.test(a));
    if (algorithms.length === 0) {
      this.#log(`OIDC: ${where} declares no asymmetric signing algorithm (id_token_signing_alg_values_supported).`);
      throw issuerUnavailable('declares no public-key signing algorithm');
    }
    const keys = createRemoteJWKSet(jwksUri, { cooldownDuration: this.#setting.jwksCooldownMs, timeoutDuration: FETCH_TIMEOUT_MS });
    return { algorithms, keys };
  }
}
