/** The catalog's leases (one replica at a time does a job) and shared secrets (every replica signs alike). */

export interface LeasesPort {
  /** True when `holder` now holds the lease (fresh, or renewed, or taken over after it expired). */
  tryLease(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** False when the lease was lost (expired and taken, or never held): the holder must stop. */
  renewLease(name: string, holder: string, ttlMs: number): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;
  /** The stored value, or `create()`'s stored if there was none; every replica gets the same one. */
  sharedSecret(name: string, create: () => string): Promise<string>;
}
