/**
 * Tests that cannot run everywhere say so when they are skipped: the reason
 * goes into the title (reporters that list tests show it) and onto a console
 * line (every run's output shows it), so a reader of CI logs knows what was
 * not run and why, not just a count of skipped tests.
 */
export function skipNote(skipped: boolean, title: string, reason: string): string {
  if (!skipped) return title;
  console.log(`SKIPPED "${title}": ${reason}`);
  return `${title} [skipped: ${reason}]`;
}
