/**
 * The shape test that sends a bearer token to the identity provider's
 * verifier, apart from the verifier itself: the authenticator needs it on
 * every server, jose (which the verifier loads) only a server with
 * SLUICE_OIDC_ISSUER.
 */

/** True when `value` has the shape of a compact JWS (three dot-separated parts), so it is verified as a JWT. */
export function looksLikeJwt(value: string): boolean {
  return value.split('.').length === 3;
}
