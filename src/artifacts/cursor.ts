/**
 * Read cursors: opaque, signed, expiring, and bound to the artifact, the
 * principal and the exact shape of the read (columns, filters, sort). The
 * position inside is a row offset into the read's result; the artifact never
 * changes, so following cursors yields every row exactly once, in order.
 * For a read without filters or sort the offset and the parts' row counts
 * (in the catalog since the commit) name the part and the rows the page
 * starts at, so the page reads only those (read-sql.ts).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { SluiceError } from '../errors.ts';

export const CURSOR_TTL_MS = 24 * 3600 * 1000;

interface CursorBody {
  a: string;
  p: string;
  s: string;
  o: number;
  e: number;
}

export function readShape(shape: { columns?: unknown; filters?: unknown; sort?: unknown }): string {
  const canonical = JSON.stringify([shape.columns ?? null, shape.filters ?? null, shape.sort ?? null]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

export class CursorCodec {
  #key: Buffer;
  readonly #now: () => number;

  constructor(key: string, now: () => number = Date.now) {
    this.#key = Buffer.from(key, 'base64url');
    this.#now = now;
  }

  /**
   * Signs and checks with another key from now on: replicas share theirs
   * through the catalog, known only once it answers (no artifact can be read
   * before then, so no cursor signed with the old key is in anyone's hands).
   */
  useKey(key: string): void {
    this.#key = Buffer.from(key, 'base64url');
  }

  encode(artifactId: string, principal: string, shape: string, offset: number): string {
    const body: CursorBody = { a: artifactId, p: principal, s: shape, o: offset, e: this.#now() + CURSOR_TTL_MS };
    const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
    return `${payload}.${this.#sign(payload)}`;
  }

  /** The offset a cursor points at; INVALID_CURSOR or CURSOR_EXPIRED otherwise. */
  decode(cursor: string, artifactId: string, principal: string, shape: string): number {
    // Made only when needed: an error captures a stack, and most cursors are good.
    const invalid = () => new SluiceError('INVALID_CURSOR', 'This cursor is not valid for this read; start again without a cursor.');
    const [payload, signature, extra] = cursor.split('.');
    if (payload === undefined || signature === undefined || extra !== undefined) throw invalid();
    const expected = Buffer.from(this.#sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
    let body: CursorBody;
    try {
      body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as CursorBody;
    } catch {
      throw invalid();
    }
    if (body.a !== artifactId || body.p !== principal || body.s !== shape || !Number.isSafeInteger(body.o) || body.o < 0) {
      throw invalid();
    }
    if (body.e < this.#now()) {
      throw new SluiceError('CURSOR_EXPIRED', 'This cursor has expired; start the read again without a cursor.');
    }
    return body.o;
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url');
  }
}
