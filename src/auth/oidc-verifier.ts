/**
 * Verifies an identity provider's JWT and answers its Principal: the
 * algorithm the header names must be one the provider declares, then jose
 * checks the signature against the provider's published key, `iss`, `aud`,
 * `exp` (required) and `nbf`, with a small clock skew. Every refusal is
 * UNAUTHORIZED with a sentence naming the check that failed; no key, secret
 * or token text is ever put in it.
 */
import { decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import type { OidcSetting } from '../config.ts';
import { SluiceError } from '../errors.ts';
import { principalFromClaims } from './oidc-claims.ts';
import { issuerUnavailable, OidcIssuer } from './oidc-issuer.ts';
import type { Principal } from './principals.ts';

const CLOCK_SKEW_S = 30;

function refused(sentence: string): SluiceError {
  return new SluiceError('UNAUTHORIZED', `The token was refused: ${sentence}`);
}

export { looksLikeJwt } from './jwt-shape.ts';

export class OidcVerifier {
  readonly #setting: OidcSetting;
  readonly #issuer: OidcIssuer;

  constructor(setting: OidcSetting, log: (line: string) => void) {
    this.#setting = setting;
    this.#issuer = new OidcIssuer(setting, log);
  }

  async verify(jwt: string): Promise<Principal> {
    let alg: unknown;
    try {
      alg = decodeProtectedHeader(jwt).alg;
    } catch {
      throw refused('it is not a well-formed JWT (three base64url parts, the first a JSON header).');
    }
    const { algorithms, keys } = await this.#issuer.keys();
    if (typeof alg !== 'string' || !algorithms.includes(alg)) {
      throw refused(`it is signed with ${typeof alg === 'string' ? JSON.stringify(alg.slice(0, 20)) : 'no algorithm'}, which is not one the identity provider declares (${algorithms.join(', ')}).`);
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(jwt, keys, {
        issuer: this.#setting.issuer,
        audience: this.#setting.audience,
        algorithms,
        clockTolerance: CLOCK_SKEW_S,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw this.#explain(error);
    }
    return principalFromClaims(payload, this.#setting);
  }

  #explain(error: unknown): SluiceError {
    if (error instanceof errors.JWTExpired) return refused('it has expired (exp is in the past).');
    if (error instanceof errors.JWTClaimValidationFailed) return this.#claimFailure(error);
    if (error instanceof errors.JWKSNoMatchingKey) return refused('the identity provider publishes no key with its key id (kid).');
    if (error instanceof errors.JWKSMultipleMatchingKeys) return refused('it names no key id (kid) and the identity provider publishes several keys it could be.');
    if (error instanceof errors.JWSSignatureVerificationFailed) return refused('its signature does not verify with the identity provider\u2019s published key.');
    if (error instanceof errors.JOSEAlgNotAllowed) return refused('its algorithm is not one the identity provider declares.');
    if (error instanceof errors.JWKSTimeout || error instanceof TypeError) return issuerUnavailable('key set cannot be reached');
    if (error instanceof errors.JWKSInvalid || (error instanceof errors.JOSEError && error.code === 'ERR_JOSE_GENERIC')) return issuerUnavailable('key set cannot be read');
    return refused('it is not a well-formed signed JWT.');
  }

  #claimFailure(error: InstanceType<typeof errors.JWTClaimValidationFailed>): SluiceError {
    switch (error.claim) {
      case 'iss':
        return refused(`it was not issued by ${this.#setting.issuer} (iss).`);
      case 'aud':
        return refused(`its audience (aud) does not include ${this.#setting.audience}.`);
      case 'nbf':
        return refused('it is not valid yet (nbf is in the future).');
      case 'exp':
        return refused(error.reason === 'missing' ? 'it has no expiry (exp).' : 'its expiry (exp) is not a number.');
      case 'iat':
        return refused('its issue time (iat) is not a number.');
      default:
        return refused(`its ${error.claim} claim is invalid.`);
    }
  }
}
