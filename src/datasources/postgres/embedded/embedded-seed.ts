/**
 * The sample shop dataset of the embedded database: its schema, the SQL that
 * generates it, and the marker that says it is complete. Every value comes
 * from an integer hash of the row number, never from random(), so every
 * install holds the same rows and the same totals. Runs inside the embedded
 * Postgres worker, against the PGlite instance directly.
 */
import type { PGlite, Transaction } from '@electric-sql/pglite';

/** Raise this when the generated data changes; an older marker triggers a reseed. */
export const SEED_VERSION = 1;

export const SEED_SIZES = {
  customers: 50_000,
  products: 1_000,
  orders: 400_000,
} as const;

const ORDER_BATCHES = 10;
const TABLES = ['refunds', 'order_items', 'orders', 'products', 'customers'];

// The helpers are SQL one-liners so the planner inlines them, and live in
// pg_temp because PGlite has a single session that every socket client
// shares: FINISH drops them again. The hash constants keep each product below
// 2^63. sluice_at maps a cumulative share of rows to a time whose rate rises
// linearly (the inverse of (u + u^2) / 2), so the shop grows threefold over
// [2024-01-01, 2026-10-01) and ids grow with time, as in a real shop.
const HELPERS = `
CREATE OR REPLACE FUNCTION pg_temp.sluice_mix(v bigint) RETURNS bigint
  LANGUAGE sql IMMUTABLE AS $$ SELECT v # (v >> 16) $$;
CREATE OR REPLACE FUNCTION pg_temp.sluice_h(x bigint) RETURNS bigint
  LANGUAGE sql IMMUTABLE AS $$ SELECT pg_temp.sluice_mix((pg_temp.sluice_mix(
    ((x % 2147483648) * 2654435761) % 4294967296) * 73244475) % 4294967296) $$;
CREATE OR REPLACE FUNCTION pg_temp.sluice_u(x bigint) RETURNS float8
  LANGUAGE sql IMMUTABLE AS $$ SELECT pg_temp.sluice_h(x) / 4294967296.0::float8 $$;
CREATE OR REPLACE FUNCTION pg_temp.sluice_at(frac float8) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE AS $$ SELECT timestamptz '2024-01-01 00:00:00+00'
    + make_interval(secs => floor((sqrt(1 + 8 * frac) - 1) / 2 * 86745600)) $$;
`;

const SCHEMA = `
CREATE SCHEMA IF NOT EXISTS sluice_meta;
DROP TABLE IF EXISTS sluice_meta.seed;
DROP TABLE IF EXISTS ${TABLES.map((t) => `public.${t}`).join(', ')} CASCADE;
CREATE TABLE public.customers (id bigint PRIMARY KEY, name text NOT NULL, email text NOT NULL,
  region text NOT NULL, created_at timestamptz NOT NULL);
CREATE TABLE public.products (id bigint PRIMARY KEY, name text NOT NULL, category text NOT NULL,
  price numeric(10,2) NOT NULL);
CREATE TABLE public.orders (id bigint PRIMARY KEY, customer_id bigint NOT NULL, status text NOT NULL,
  region text NOT NULL, created_at timestamptz NOT NULL, total numeric(12,2) NOT NULL);
CREATE TABLE public.order_items (id bigint PRIMARY KEY, order_id bigint NOT NULL,
  product_id bigint NOT NULL, quantity int NOT NULL, unit_price numeric(10,2) NOT NULL);
CREATE TABLE public.refunds (id bigint PRIMARY KEY, order_id bigint NOT NULL,
  amount numeric(12,2) NOT NULL, reason text NOT NULL, created_at timestamptz NOT NULL);
`;

const CUSTOMERS = `
INSERT INTO public.customers (id, name, email, region, created_at)
SELECT i, f || ' ' || l, lower(f || '.' || l) || i || '@example.com',
  (ARRAY['north','south','east','west','central'])[1 + pg_temp.sluice_h(100000000 + i * 8 + 2) % 5],
  pg_temp.sluice_at((i - 1 + pg_temp.sluice_u(100000000 + i * 8 + 3)) / ${SEED_SIZES.customers})
FROM generate_series(1, ${SEED_SIZES.customers}) i,
  LATERAL (SELECT (ARRAY['Olivia','Liam','Emma','Noah','Ava','Elijah','Sophia','Mateo','Isabella',
    'Lucas','Mia','Amir','Chloe','Kenji','Priya','Diego','Fatima','Hugo','Ingrid','Jamal','Lena',
    'Mohammed','Nora','Oscar','Rosa','Sven','Tariq','Yuki','Zoe','Wei'])
      [1 + pg_temp.sluice_h(100000000 + i * 8) % 30] AS f,
    (ARRAY['Smith','Garcia','Nguyen','Müller','Rossi','Kowalski','Tanaka','Okafor','Silva','Johansson',
    'Dubois','Khan','Martin','Novak','Patel','Cohen','Jensen','Lopez','Brown','Ivanova'])
      [1 + pg_temp.sluice_h(100000000 + i * 8 + 1) % 20] AS l) n;
`;

const PRODUCTS = `
INSERT INTO public.products (id, name, category, price)
SELECT i,
  (ARRAY['Classic','Deluxe','Eco','Compact','Smart','Vintage','Urban','Nordic','Premium','Everyday',
    'Travel','Studio'])[1 + pg_temp.sluice_h(200000000 + i * 8) % 12] || ' ' ||
  (ARRAY['Headphones','Charger','Speaker','Keyboard','Lamp','Blanket','Mug','Candle','Planter','Hose',
    'Shears','Seed Kit','Puzzle','Robot Kit','Plush Bear','Kite','Yoga Mat','Water Bottle','Jump Rope',
    'Dumbbell','Cookbook','Notebook','Novel','Atlas','T-Shirt','Hoodie','Socks','Cap','Face Cream',
    'Shampoo','Lip Balm','Perfume','Coffee Beans','Green Tea','Olive Oil','Granola','Desk Organizer',
    'Pen Set','Stapler','Monitor Stand'])[1 + k] || ' ' ||
  (ARRAY['Mini','Pro','Max','Plus','Lite','One','XL','II'])[1 + pg_temp.sluice_h(200000000 + i * 8 + 1) % 8],
  (ARRAY['electronics','home','garden','toys','sports','books','clothing','beauty','grocery','office'])
    [1 + k / 4],
  (4 + floor(pg_temp.sluice_u(200000000 + i * 8 + 2) ^ 2 * 296))::numeric + 0.99
FROM generate_series(1, ${SEED_SIZES.products}) i,
  LATERAL (SELECT (pg_temp.sluice_h(200000000 + i * 8 + 3) % 40)::int AS k) c;
`;

// One statement per batch writes the items and then the orders whose totals
// they make up; popular products have low ids (squared uniform draw), and
// customers are drawn from those who had signed up by the order's date.
const ORDER_BATCH = `
WITH o AS (
  SELECT j AS id,
    1 + pg_temp.sluice_h(300000000 + j * 8) % greatest(1, j * ${SEED_SIZES.customers} / ${SEED_SIZES.orders})
      AS customer_id,
    pg_temp.sluice_at((j - 1 + pg_temp.sluice_u(300000000 + j * 8 + 3)) / ${SEED_SIZES.orders}) AS created_at,
    pg_temp.sluice_h(300000000 + j * 8 + 1) % 100 AS roll
  FROM generate_series($1::bigint, $2::bigint) j
), items AS (
  SELECT o.id AS order_id, g AS line, p.id AS product_id, p.price AS unit_price,
    CASE WHEN pg_temp.sluice_h(400000000 + (o.id * 4 + g) * 4) % 10 = 0
      THEN 3 + pg_temp.sluice_h(400000000 + (o.id * 4 + g) * 4 + 1) % 5
      ELSE 1 + pg_temp.sluice_h(400000000 + (o.id * 4 + g) * 4 + 1) % 2 END AS quantity
  FROM o CROSS JOIN generate_series(1, 4) g
  JOIN public.products p
    ON p.id = 1 + floor(pg_temp.sluice_u(400000000 + (o.id * 4 + g) * 4 + 2) ^ 2 * ${SEED_SIZES.products})
  WHERE g <= 1 + pg_temp.sluice_h(300000000 + o.id * 8 + 2) % 4
), written AS (
  INSERT INTO public.order_items (id, order_id, product_id, quantity, unit_price)
  SELECT $3::bigint + row_number() OVER (ORDER BY order_id, line), order_id, product_id, quantity, unit_price
  FROM items
  RETURNING 1
)
INSERT INTO public.orders (id, customer_id, status, region, created_at, total)
SELECT o.id, o.customer_id,
  CASE WHEN o.created_at >= timestamptz '2026-09-29 00:00:00+00'
         THEN CASE WHEN o.roll < 50 THEN 'pending' ELSE 'processing' END
       WHEN o.created_at >= timestamptz '2026-09-24 00:00:00+00'
         THEN CASE WHEN o.roll < 85 THEN 'shipped' WHEN o.roll < 95 THEN 'processing' ELSE 'cancelled' END
       WHEN o.roll < 90 THEN 'delivered' WHEN o.roll < 95 THEN 'cancelled' ELSE 'refunded' END,
  c.region, o.created_at, t.total
FROM o
JOIN public.customers c ON c.id = o.customer_id
JOIN (SELECT order_id, sum(quantity * unit_price) AS total FROM items GROUP BY order_id) t
  ON t.order_id = o.id;
`;

const REFUNDS = `
INSERT INTO public.refunds (id, order_id, amount, reason, created_at)
SELECT row_number() OVER (ORDER BY o.id), o.id,
  CASE WHEN pg_temp.sluice_h(500000000 + o.id * 4) % 100 < 65 THEN o.total
    ELSE round(o.total * (0.2 + 0.6 * pg_temp.sluice_u(500000000 + o.id * 4 + 1))::numeric, 2) END,
  (ARRAY['damaged','defective','not_as_described','wrong_item','late_delivery','changed_mind'])
    [1 + pg_temp.sluice_h(500000000 + o.id * 4 + 2) % 6],
  least(timestamptz '2026-09-30 23:59:59+00', o.created_at
    + make_interval(secs => 259200 + floor(pg_temp.sluice_u(500000000 + o.id * 4 + 3) * 2160000)))
FROM public.orders o WHERE o.status = 'refunded';
`;

const FINISH = `
ALTER TABLE public.orders ADD FOREIGN KEY (customer_id) REFERENCES public.customers (id);
ALTER TABLE public.order_items ADD FOREIGN KEY (order_id) REFERENCES public.orders (id);
ALTER TABLE public.order_items ADD FOREIGN KEY (product_id) REFERENCES public.products (id);
ALTER TABLE public.refunds ADD FOREIGN KEY (order_id) REFERENCES public.orders (id);
CREATE INDEX ON public.orders (customer_id);
CREATE INDEX ON public.orders (created_at);
CREATE INDEX ON public.order_items (order_id);
CREATE INDEX ON public.order_items (product_id);
CREATE INDEX ON public.refunds (order_id);
CREATE INDEX ON public.refunds (created_at);
CREATE INDEX ON public.customers (created_at);
CREATE TABLE sluice_meta.seed (version int NOT NULL, seeded_at timestamptz NOT NULL);
INSERT INTO sluice_meta.seed VALUES (${SEED_VERSION}, now());
DROP FUNCTION pg_temp.sluice_at(float8), pg_temp.sluice_u(bigint), pg_temp.sluice_h(bigint),
  pg_temp.sluice_mix(bigint);
ANALYZE;
`;

async function seededVersion(db: PGlite): Promise<number | undefined> {
  const exists = await db.query<{ found: boolean }>(
    "SELECT to_regclass('sluice_meta.seed') IS NOT NULL AS found",
  );
  if (exists.rows[0]?.found !== true) return undefined;
  const marker = await db.query<{ version: number | null }>(
    'SELECT max(version) AS version FROM sluice_meta.seed',
  );
  return marker.rows[0]?.version ?? undefined;
}

/**
 * Seeds the sample data unless a complete seed of this version is present.
 * The whole seed is one transaction and the marker is its last row, so a
 * killed process leaves either nothing or everything; a stale or missing
 * marker drops whatever is there and starts over. An abort between batches
 * rolls the transaction back, which is how a stop during seeding stays clean.
 */
export async function seedIfNeeded(
  db: PGlite,
  progress: (message: string) => void,
  signal?: AbortSignal,
): Promise<boolean> {
  if ((await seededVersion(db)) === SEED_VERSION) return false;
  const started = Date.now();
  await db.transaction(async (tx: Transaction) => {
    progress('Seeding sample data (first start only): customers and products');
    await tx.exec(HELPERS + SCHEMA);
    await tx.exec(CUSTOMERS + PRODUCTS);
    const step = SEED_SIZES.orders / ORDER_BATCHES;
    for (let from = 1; from <= SEED_SIZES.orders; from += step) {
      signal?.throwIfAborted();
      const last = await tx.query<{ n: string }>(
        'SELECT coalesce(max(id), 0)::text AS n FROM public.order_items',
      );
      await tx.query(ORDER_BATCH, [from, from + step - 1, last.rows[0]?.n ?? '0']);
      progress(`Seeding sample data: orders ${from + step - 1}/${SEED_SIZES.orders}`);
    }
    signal?.throwIfAborted();
    progress('Seeding sample data: refunds');
    await tx.exec(REFUNDS);
    progress('Seeding sample data: indexes and statistics');
    await tx.exec(FINISH);
  });
  progress(`Seeding sample data: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return true;
}
