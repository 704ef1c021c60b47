-- Confab's tables, and the row level security that keeps each person to their own rows.
--
-- Who may do what:
-- * A person's transaction (`asPerson`) runs as the role confab_person with `app.person` set for that
--   transaction only. The policies below are written `to confab_person` and compare each row's
--   `person` with current_setting('app.person', true); a role with no policy for an action gets no
--   rows for it, and a role with no privilege for it gets an error.
-- * The server's own connection (`asServer`) owns these tables. Row level security is ENABLED, not
--   FORCED, so the owner is not restricted: it writes what no person may (memories, usage,
--   reservations), and every query it runs names its person explicitly.
-- * The boundary guards against a query that forgets its person or takes one from a request; it is
--   not a sandbox for arbitrary SQL (a transaction can `reset role`), and none is ever run.

create extension if not exists vector;

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'confab_person') then
    create role confab_person nologin;
  end if;
end
$$;

-- The connecting role must be a member of confab_person to `set role` to it. A superuser always may;
-- a managed Postgres's owner role is not a superuser.
grant confab_person to current_user;
grant usage on schema public to confab_person;

-- A conversation with one bot. Its title is not stored: it is the first thing the person said,
-- trimmed to a line, read from `lines` when threads are listed, so it can never disagree with them.
create table threads (
  id uuid primary key default gen_random_uuid(),
  person text not null check (person <> ''),
  bot text not null,
  created_at timestamptz not null default now(),
  -- The target of lines' (thread_id, person) key: a line's person is its thread's person.
  unique (id, person)
);
create index threads_person_bot on threads (person, bot);

alter table threads enable row level security;
grant select, insert, delete on threads to confab_person;
create policy threads_own on threads for all to confab_person
  using (person = current_setting('app.person', true))
  with check (person = current_setting('app.person', true));

-- The lines of a conversation, kept as they are said. Written by the person under their own session:
-- the worst a forged line can do is lie to its forger in their own transcript. `seq` orders lines
-- said within one clock tick; `client_id` makes a retried save return the line already saved.
create table lines (
  id uuid primary key default gen_random_uuid(),
  seq bigint generated always as identity,
  thread_id uuid not null,
  person text not null,
  who text not null check (who in ('person', 'assistant')),
  text text not null,
  client_id text not null,
  interrupted boolean not null default false,
  created_at timestamptz not null default now(),
  unique (thread_id, client_id),
  foreign key (thread_id, person) references threads (id, person) on delete cascade
);
create index lines_thread_seq on lines (thread_id, seq);
-- What a person asked before, across conversations (`memory: person`).
create index lines_person_said on lines (person, seq) where who = 'person';

alter table lines enable row level security;
grant select, insert on lines to confab_person;
create policy lines_read on lines for select to confab_person
  using (person = current_setting('app.person', true));
-- A line must go in a conversation that is the person's, not merely carry their name.
create policy lines_write on lines for insert to confab_person
  with check (
    person = current_setting('app.person', true)
    and exists (select 1 from threads t where t.id = thread_id and t.person = current_setting('app.person', true))
  );

-- What a person told a bot with `memory: person+recall`, and a 384-wide vector of it. Only the server
-- writes here: there is deliberately no insert and no update policy, because a client that could
-- write a memory could put words in somebody's mouth for the bot to recall later as theirs. The
-- person reads and forgets their own. Vectors of different embedders are never compared.
create table memories (
  id uuid primary key default gen_random_uuid(),
  seq bigint generated always as identity,
  person text not null check (person <> ''),
  bot text not null,
  text text not null,
  embedder text not null,
  embedding vector(384) not null,
  created_at timestamptz not null default now()
);
create index memories_owner on memories (person, bot, embedder, seq);
-- Approximate nearest neighbours by cosine distance, for a person with many memories; a person with
-- few is served by memories_owner and an exact sort. Recall turns on pgvector's iterative scan so the
-- person/bot/embedder filter cannot starve the index of matches.
create index memories_nearest on memories using hnsw (embedding vector_cosine_ops);

alter table memories enable row level security;
grant select, delete on memories to confab_person;
create policy memories_read on memories for select to confab_person
  using (person = current_setting('app.person', true));
create policy memories_forget on memories for delete to confab_person
  using (person = current_setting('app.person', true));

-- An answer admitted under a person's ceilings for one bot. Taken under a per-person advisory lock, so
-- two servers over one database cannot both admit the answer that crosses a ceiling. `hold` is spend
-- (US dollars) held for the answer while it runs; recording its usage, or releasing it, sets it to 0.
-- The server's own: no policy and no privilege for confab_person.
create table reservations (
  id uuid primary key default gen_random_uuid(),
  person text not null check (person <> ''),
  bot text not null,
  reserved_at timestamptz not null,
  hold numeric not null default 0 check (hold >= 0),
  -- The target of usage's (reservation_id, person) key: usage settles only its own person's answer.
  unique (id, person)
);
create index reservations_window on reservations (person, bot, reserved_at);

alter table reservations enable row level security;

-- What one answer used: which provider answered, its tokens and its cost in US dollars (from the
-- configured price table). Written by the server; the person may read their own.
create table usage (
  id uuid primary key default gen_random_uuid(),
  reservation_id uuid unique,
  person text not null check (person <> ''),
  bot text not null,
  provider text not null,
  model text not null,
  prompt_tokens integer not null check (prompt_tokens >= 0),
  completion_tokens integer not null check (completion_tokens >= 0),
  cost numeric not null check (cost >= 0),
  started_at timestamptz not null,
  created_at timestamptz not null default now(),
  foreign key (reservation_id, person) references reservations (id, person)
);
create index usage_window on usage (person, bot, started_at);

alter table usage enable row level security;
grant select on usage to confab_person;
create policy usage_read on usage for select to confab_person
  using (person = current_setting('app.person', true));
