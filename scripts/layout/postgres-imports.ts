/** Rule 1: PostgreSQL packages are imported only in the folders that own an engine. */
import { POSTGRES_ALLOWED_PREFIXES, POSTGRES_PACKAGES, type ImportRef, type ParsedFile, type Violation } from './source-files.ts';

export function postgresPackageOf(specifier: string): string | undefined {
  return POSTGRES_PACKAGES.find((name) => specifier === name || specifier.startsWith(`${name}/`));
}

export function isPostgresAllowed(path: string): boolean {
  return POSTGRES_ALLOWED_PREFIXES.some((prefix) => path.startsWith(prefix));
}

export function checkPostgresImports(file: ParsedFile, imports: readonly ImportRef[]): Violation[] {
  if (isPostgresAllowed(file.path)) return [];
  const violations: Violation[] = [];
  for (const ref of imports) {
    const pkg = postgresPackageOf(ref.specifier);
    if (!pkg) continue;
    const shown = ref.specifier === pkg ? `'${pkg}'` : `'${ref.specifier}' (package ${pkg})`;
    violations.push({
      file: file.path,
      line: ref.line,
      message: `imports PostgreSQL package ${shown} outside ${POSTGRES_ALLOWED_PREFIXES.join(' and ')}`,
    });
  }
  return violations;
}
