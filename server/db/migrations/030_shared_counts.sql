-- What every instance over one database counts together, so that a limit of the site's, a person's
-- or an address's holds however many instances run (server/db/sharedCounts.ts): places held for a
-- while, and buckets that refill. Keys are SHA-256 digests of what is counted and whose, so these
-- tables hold no address, person or token, and every row lapses within minutes; no person's
-- transaction may read or write them.

-- A place under a key, held until `until`: an arrival counted over a sliding window (a new person
-- from an address, a wrong link code) holds one until it leaves the window; an open presence stream
-- holds its page's slot, kept on by its heartbeat, so the streams of an instance that stopped lapse.
-- Counting a key's places and taking one happen under an advisory lock keyed by it.
create table shared_places (
  key text not null check (key ~ '^[0-9a-f]{64}$'),
  slot text not null default gen_random_uuid()::text,
  -- Which stream holds the slot, so an old stream ending cannot let go of its page's new one.
  holder text,
  until timestamptz not null,
  primary key (key, slot)
);
create index shared_places_until on shared_places (until);

-- A bucket of calls per key: `tokens` as counted at `counted_at_ms`, refilled at a steady rate up to
-- its size. A bucket full again (past `full_at_ms`) is the same as none, and is deleted as it is
-- passed. Times are ms since the epoch, for the refill's arithmetic in the statement that takes one.
create table shared_buckets (
  key text primary key check (key ~ '^[0-9a-f]{64}$'),
  tokens double precision not null,
  counted_at_ms bigint not null,
  full_at_ms bigint not null
);
create index shared_buckets_full on shared_buckets (full_at_ms);

-- The server's own secrets, made once for every instance: `grant` signs grants and person cookies
-- when GRANT_SECRET is unset on Postgres (server/grants.ts). The first instance to start writes it.
create table server_secrets (
  name text primary key check (name <> ''),
  value text not null check (char_length(value) >= 32),
  made_at timestamptz not null default now()
);

-- The server's alone: row level security with no policy, and nothing granted to confab_person.
alter table shared_places enable row level security;
alter table shared_buckets enable row level security;
alter table server_secrets enable row level security;
revoke all on shared_places, shared_buckets, server_secrets from confab_person;
