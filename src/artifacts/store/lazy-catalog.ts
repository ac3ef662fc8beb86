/**
 * A catalog that may not be reachable yet. Opening the PostgreSQL catalog
 * connects and migrates; a server whose catalog is down at start must still
 * come up (liveness 200, readiness 503 naming the catalog) and recover by
 * itself. So the catalog is opened in the background, again and again until
 * it opens, and every call made before then answers STORAGE_UNAVAILABLE
 * instead of waiting or crashing.
 */
import { SluiceError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import type { Catalog } from '../../catalog/catalog.ts';

const RETRY_MS = 2_000;

function unavailable(): SluiceError {
  return new SluiceError('STORAGE_UNAVAILABLE', 'The artifact catalog cannot be reached now; retry shortly.', { retryable: true, reason: 'CATALOG_UNAVAILABLE' });
}

export interface LazyCatalog {
  /** The catalog once open; every method throws STORAGE_UNAVAILABLE before. */
  readonly catalog: Catalog;
  /** True once the catalog has opened. */
  readonly open: boolean;
  /**
   * Resolves when it has opened (never, while it cannot). Rejects once closed before it opened,
   * since it cannot open after that: a caller waiting for it (start-up) must not keep the
   * shutdown waiting on it.
   */
  readonly opened: Promise<void>;
  close(): Promise<void>;
}

export function lazyCatalog(openCatalog: () => Promise<Catalog>, log: Logger): LazyCatalog {
  let current: Catalog | null = null;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let markOpened!: () => void;
  let markClosed!: (error: Error) => void;
  const opened = new Promise<void>((resolve, reject) => {
    markOpened = resolve;
    markClosed = reject;
  });
  // Closing may come before anyone waits: that rejection must not count as unhandled and end the process.
  opened.catch(() => undefined);
  let failures = 0;

  const attempt = async (): Promise<void> => {
    try {
      const catalog = await openCatalog();
      if (closed) return void (await catalog.close());
      current = catalog;
      if (failures > 0) log.info('The artifact catalog is reachable again.');
      markOpened();
    } catch (error) {
      // Said once, not every two seconds: the readiness check names what is missing meanwhile.
      if (failures++ === 0) log.error('The artifact catalog cannot be opened; retrying in the background.', error);
      if (!closed) {
        timer = setTimeout(() => void attempt(), RETRY_MS);
        timer.unref?.();
      }
    }
  };
  void attempt();

  const catalog = new Proxy({} as Catalog, {
    get(_target, name: keyof Catalog | 'then') {
      // Not a promise: without this, awaiting the catalog (or returning it from an async function) would call `then`.
      if (name === 'then') return undefined;
      return (...args: unknown[]) => {
        if (current === null) return Promise.reject(unavailable());
        return (current[name] as (...a: unknown[]) => unknown)(...args);
      };
    },
  });

  return {
    catalog,
    get open() {
      return current !== null;
    },
    opened,
    async close() {
      closed = true;
      clearTimeout(timer);
      // Settles nothing once it has opened; an attempt still connecting closes what it opens by itself.
      markClosed(new SluiceError('INTERNAL', 'The artifact catalog was closed before it opened.'));
      await current?.close();
    },
  };
}
