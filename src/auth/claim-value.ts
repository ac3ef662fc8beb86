/**
 * One claim of a verified token by its name: the exact name first (namespaced
 * claims such as "https://example.com/tenant" hold dots), else a dotted path
 * into nested objects ("org.tenant"). Used for the claims that name the
 * principal and for those a datasource's row-level scope reads.
 */
export function claimValue(claims: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.hasOwn(claims, name)) return claims[name];
  let value: unknown = claims;
  for (const step of name.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, step)) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}
