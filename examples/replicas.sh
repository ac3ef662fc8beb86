#!/usr/bin/env bash
# Three Sluice replicas sharing one store, on this machine:
#   - a local S3-compatible server (s3rver, a dev dependency) holding the bytes,
#   - the artifact catalog in PostgreSQL (database sluice_catalog, created if missing),
#   - replicas on ports 8801, 8802 and 8803, each with a data dir of its own.
# Usage: examples/replicas.sh [postgres://user@host:port]   (default: postgres://postgres@127.0.0.1:5432)
# Ctrl+C stops everything.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PG=${1:-postgres://postgres@127.0.0.1:5432}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sluice-replicas.XXXXXX")
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT

psql "$PG/postgres" -tAc "SELECT 1 FROM pg_database WHERE datname = 'sluice_catalog'" | grep -q 1 ||
  psql "$PG/postgres" -c 'CREATE DATABASE sluice_catalog' >/dev/null

npm run --silent build

# s3rver signs its listing cursors with a cipher OpenSSL 3 keeps behind this flag.
mkdir -p "$WORK/s3"
node --openssl-legacy-provider node_modules/.bin/s3rver -d "$WORK/s3" -a 127.0.0.1 -p 4568 --silent --configure-bucket sluice >/dev/null &
PIDS+=($!)

export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER
export DATABASE_URL="$PG/postgres"
export SLUICE_CATALOG_URL="$PG/sluice_catalog"
export SLUICE_ARTIFACT_URL=s3://sluice/artifacts SLUICE_S3_ENDPOINT=http://127.0.0.1:4568 SLUICE_S3_FORCE_PATH_STYLE=true

for port in 8801 8802 8803; do
  PORT=$port SLUICE_DATA_DIR="$WORK/replica-$port" node dist/src/index.js >"$WORK/replica-$port.log" 2>&1 &
  PIDS+=($!)
done
for port in 8801 8802 8803; do
  until curl -sf "http://127.0.0.1:$port/readyz" >/dev/null; do sleep 0.5; done
done
TOKEN=$(sed -nE 's/^Admin token: +([^ ]+).*/\1/p' "$WORK/replica-8801.log" | head -n 1)

echo "Three replicas are ready on ports 8801, 8802 and 8803; the admin token (the same on each) is:"
echo "  $TOKEN"
echo "Try: create an artifact on one replica and read it on another:"
echo "  curl -s -H 'X-Token: $TOKEN' -H 'Content-Type: application/json' -d '{\"sql\": \"SELECT g FROM generate_series(1, 1000) g\"}' http://127.0.0.1:8801/api/queries"
echo "  curl -s -H 'X-Token: $TOKEN' -H 'Content-Type: application/json' -d '{\"limit\": 5}' http://127.0.0.1:8803/api/artifacts/<artifact id>/read"
echo "Logs are in $WORK. Ctrl+C stops everything."
wait
