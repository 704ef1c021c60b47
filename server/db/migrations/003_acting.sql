-- Verbs: what a bot (or an MCP client) did for a person, what waits for their yes, and what an app
-- asks their page to say at a time. All of it is the person's own, under row level security: the
-- executor runs every verb in the person's transaction.

-- One row per verb call that succeeded. A write's row holds its idempotency key and its result, in
-- the same transaction as its effect, so a retried call with the same key returns the first result
-- and never repeats the effect; the same key with a different input is refused (`input_digest`).
-- `conversation` is the page's key for one conversation: the last two apps used in it stay in scope.
-- No arguments are kept, only their digest; a write's output is kept because a retry returns it.
create table verb_calls (
  id uuid primary key default gen_random_uuid(),
  seq bigint generated always as identity,
  person text not null check (person <> ''),
  bot text not null,
  verb text not null,
  app text not null,
  conversation text,
  idem_key text,
  input_digest text not null,
  output jsonb,
  created_at timestamptz not null default now(),
  unique (person, idem_key)
);
create index verb_calls_recent on verb_calls (person, bot, conversation, seq);

alter table verb_calls enable row level security;
grant select, insert on verb_calls to confab_person;
create policy verb_calls_own on verb_calls for all to confab_person
  using (person = current_setting('app.person', true))
  with check (person = current_setting('app.person', true));

-- A `confirm` verb the model asked for: held until the person approves or refuses it in their page,
-- single use (`state` leaves 'pending' once), and only for `expires_at`. The validated input is kept
-- so that what runs is exactly what the person was asked about.
create table pending_actions (
  id uuid primary key default gen_random_uuid(),
  person text not null check (person <> ''),
  bot text not null,
  verb text not null,
  input jsonb not null,
  question text not null,
  time_zone text not null default 'UTC',
  conversation text,
  state text not null default 'pending' check (state in ('pending', 'approved', 'denied')),
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index pending_actions_person on pending_actions (person, created_at);

alter table pending_actions enable row level security;
grant select, insert, update on pending_actions to confab_person;
create policy pending_actions_own on pending_actions for all to confab_person
  using (person = current_setting('app.person', true))
  with check (person = current_setting('app.person', true));

-- Something an app asks the person's open page to say at `due_at` (a reminder). The page that says
-- it marks it delivered, once: two open pages never both say it, and one opened later lists what
-- came due while none was open.
create table notices (
  id uuid primary key default gen_random_uuid(),
  person text not null check (person <> ''),
  bot text not null,
  app text not null,
  text text not null,
  due_at timestamptz not null,
  delivered_at timestamptz,
  created_at timestamptz not null default now()
);
create index notices_due on notices (person, bot, due_at) where delivered_at is null;

alter table notices enable row level security;
grant select, insert, update, delete on notices to confab_person;
create policy notices_own on notices for all to confab_person
  using (person = current_setting('app.person', true))
  with check (person = current_setting('app.person', true));
