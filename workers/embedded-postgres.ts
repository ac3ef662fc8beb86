/**
 * Entry of the embedded PostgreSQL thread. What runs inside lives with the
 * PostgreSQL driver (src/datasources/postgres/embedded/embedded-worker.ts);
 * this file only names it as a thread entry, for the build and the loader.
 */
import '../src/datasources/postgres/embedded/embedded-worker.ts';
