/**
 * The embedded catalog's tables. Bytes are content-addressed (`blobs`, one
 * row per distinct SHA-256, with a reference count); artifacts are
 * references owned by a principal and a session (deleted and expired ones
 * stay as tombstones, so a late read can say which). Usage counters are kept in
 * the same transactions that change what they count, so start-up never has
 * to add anything up.
 */
export const CATALOG_SCHEMA = `
CREATE TABLE IF NOT EXISTS blobs (
  hash        TEXT PRIMARY KEY,
  location    TEXT NOT NULL,
  parts       TEXT NOT NULL,
  size_bytes  INTEGER NOT NULL,
  refs        INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS artifacts (
  id          TEXT PRIMARY KEY,
  principal   TEXT NOT NULL,
  session_id  TEXT NOT NULL,
  hash        TEXT NOT NULL,
  state       TEXT NOT NULL,
  datasource  TEXT NOT NULL,
  sql         TEXT NOT NULL,
  columns     TEXT NOT NULL,
  row_count   INTEGER NOT NULL,
  size_bytes  INTEGER NOT NULL,
  coverage    TEXT NOT NULL,
  bounded_by  TEXT,
  created_at  TEXT NOT NULL,
  expires_at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS artifacts_owner ON artifacts (principal, session_id, created_at, id);
CREATE INDEX IF NOT EXISTS artifacts_by_principal ON artifacts (principal, created_at, id);
CREATE INDEX IF NOT EXISTS artifacts_expiry ON artifacts (expires_at) WHERE state = 'COMMITTED';
CREATE TABLE IF NOT EXISTS principal_usage (
  principal      TEXT PRIMARY KEY,
  artifacts      INTEGER NOT NULL,
  logical_bytes  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS blobs_unreferenced ON blobs (hash) WHERE refs <= 0;
CREATE TABLE IF NOT EXISTS workspace_usage (
  id              INTEGER PRIMARY KEY CHECK (id = 1),
  artifacts       INTEGER NOT NULL,
  blobs           INTEGER NOT NULL,
  physical_bytes  INTEGER NOT NULL
);
INSERT OR IGNORE INTO workspace_usage (id, artifacts, blobs, physical_bytes) VALUES (1, 0, 0, 0);
`;
