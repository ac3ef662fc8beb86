/** The catalog's audit trail: who did what, shared by every replica, newest first. */
import type { ErrorCode } from '../../errors.ts';
import type { AuditAction, AuditOutcome } from '../../vocabulary.ts';
import type { RoundResult } from './artifacts-port.ts';

export interface AuditEntry {
  /** Unique, made by the writer; breaks ties between entries of the same instant. */
  id: string;
  /** When the request arrived (ISO 8601). */
  at: string;
  principal: string | null;
  action: AuditAction;
  route: string;
  datasource: string | null;
  sql: string | null;
  artifactId: string | null;
  outcome: AuditOutcome;
  errorCode: ErrorCode | null;
  rows: number | null;
  bytes: number | null;
  durationMs: number | null;
  requestId: string | null;
}

/** Where a page of the trail starts: strictly older than this entry. */
export interface AuditPosition {
  at: string;
  id: string;
}

export interface AuditQuery {
  principal?: string | undefined;
  action?: AuditAction | undefined;
  /** Entries at or after this instant. */
  since?: Date | undefined;
  after?: AuditPosition | undefined;
  limit: number;
}

export interface AuditPort {
  /** Appends a batch in as few statements as the databases allow; ids already written are not written twice. */
  appendAudit(entries: AuditEntry[]): Promise<void>;
  /** Newest first (by `at`, then `id`), at most `limit`. */
  listAudit(query: AuditQuery): Promise<AuditEntry[]>;
  /** Forgets at most `limit` entries from before `olderThan`. */
  purgeAudit(olderThan: Date, limit: number): Promise<RoundResult>;
}
