/**
 * The validation errors of one intent, collected instead of thrown one at a
 * time, so the caller hears of every one at once. The error keeps the first
 * one's message and `source`, `field` (and `explore`) at the top of its
 * details, as before, and lists them all in `details.errors`.
 */
import { SluiceError } from '../errors.ts';
import type { SemanticErrorKind } from '../vocabulary.ts';

export interface SemanticIssue {
  kind: SemanticErrorKind;
  source?: number;
  field?: string;
  message: string;
}

interface FirstIssue {
  source: number | null;
  field: string | null;
  explore: string | undefined;
}

export class SemanticIssues {
  readonly #issues: SemanticIssue[] = [];
  #first: FirstIssue | null = null;

  get count(): number {
    return this.#issues.length;
  }

  /** Records one error; `message` is prefixed with "Source n: " when it names a source. */
  add(kind: SemanticErrorKind, source: number | null, field: string | null, message: string, explore?: string): void {
    this.#issues.push({
      kind,
      ...(source === null ? {} : { source }),
      ...(field === null ? {} : { field }),
      message: `${source === null ? '' : `Source ${source}: `}${message}`,
    });
    this.#first ??= { source, field, explore };
  }

  /** The error to throw, when there is anything to report. */
  error(): SluiceError | null {
    const first = this.#issues[0];
    if (first === undefined || this.#first === null) return null;
    const { source, field, explore } = this.#first;
    const more = this.#issues.length > 1 ? ` (and ${this.#issues.length - 1} more in details.errors)` : '';
    return new SluiceError('SEMANTIC_VALIDATION_ERROR', `${first.message}${more}`, { source, field, ...(explore ? { explore } : {}), errors: [...this.#issues] });
  }

  throwIfAny(): void {
    const error = this.error();
    if (error !== null) throw error;
  }
}
