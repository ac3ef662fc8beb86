/**
 * Retention of the audit trail (SLUICE_AUDIT_RETENTION_DAYS): entries older
 * than that are purged in bounded rounds, by one replica at a time (the
 * holder of the catalog's `audit-retention` lease), in the background once
 * the server is ready: one round a minute, or back to back while a round
 * says more is waiting, as the artifact collector runs. Never at start-up,
 * never on a request's path.
 */
import type { AuditPort } from '../catalog/ports/audit-port.ts';
import type { LeasesPort } from '../catalog/ports/leases-port.ts';
import { RoundTimer } from '../runtime/round-timer.ts';

const LEASE = 'audit-retention';
const LEASE_MS = 5 * 60_000;
const INTERVAL_MS = 60_000;
const ROUND_LIMIT = 1_000;
const DAY_MS = 24 * 3600_000;

export interface RetentionRound {
  /** False when another replica holds the lease. */
  ran: boolean;
  purged: number;
  more: boolean;
}

export class AuditRetention {
  readonly #catalog: AuditPort & LeasesPort;
  readonly #replica: string;
  readonly #retentionMs: number;
  readonly #log: (line: string) => void;
  readonly #now: () => Date;
  readonly #rounds: RoundTimer;

  constructor(catalog: AuditPort & LeasesPort, options: { replica: string; retentionDays: number; log: (line: string) => void; now?: () => Date }) {
    this.#catalog = catalog;
    this.#replica = options.replica;
    this.#retentionMs = options.retentionDays * DAY_MS;
    this.#log = options.log;
    this.#now = options.now ?? (() => new Date());
    this.#rounds = new RoundTimer(() => this.round(), INTERVAL_MS, (error) => this.#log(`Audit retention failed: ${error.message}`));
  }

  start(): void {
    this.#rounds.start();
  }

  stop(): void {
    this.#rounds.stop();
  }

  /** One bounded round: at most ROUND_LIMIT entries past the retention, if this replica holds the lease. */
  async round(): Promise<RetentionRound> {
    if (!(await this.#catalog.tryLease(LEASE, this.#replica, LEASE_MS))) return { ran: false, purged: 0, more: false };
    const { count, more } = await this.#catalog.purgeAudit(new Date(this.#now().getTime() - this.#retentionMs), ROUND_LIMIT);
    return { ran: true, purged: count, more };
  }
}
