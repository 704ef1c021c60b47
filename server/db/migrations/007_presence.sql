-- Presence: which of a person's pages has the voice for a bot, the window of what happened in their
-- conversation with it (so a page that comes back is owed exactly what it missed, across a server
-- restart), and the checkpoints a long conversation's prompt is compacted to. All of it is the
-- person's own, under row level security, as in 001: every presence query runs in the person's
-- transaction.

-- The referee's state for one person and bot (src/core/presence/referee.ts): the active page and
-- the term (how many times the voice has moved), and the window's counters: the last `seq` given and
-- the `seq` of the conversation the active page shows. A transaction that changes any of it takes
-- this row `for update` first, so two server instances never interleave their rulings.
create table presence_seats (
  person text not null check (person <> ''),
  bot text not null,
  term bigint not null default 0 check (term >= 0),
  active_page text,
  active_device text,
  latest_seq bigint not null default 0 check (latest_seq >= 0),
  conversation text,
  thread_id text,
  reopened boolean not null default false,
  conversation_seq bigint,
  check ((active_page is null) = (active_device is null)),
  primary key (person, bot)
);

alter table presence_seats enable row level security;
grant select, insert, update on presence_seats to confab_person;
create policy presence_seats_own on presence_seats for all to confab_person
  using (person = current_setting('app.person', true))
  with check (person = current_setting('app.person', true));

-- The pages the referee knows: each open stream counts, and `seen_at` is the last heartbeat. A page
-- whose instance died stops being seen and is forgotten once stale.
create table presence_pages (
  person text not null check (person <> ''),
  bot text not null,
  page text not null,
  device text not null,
  streams integer not null default 0 check (streams >= 0),
  seen_at timestamptz not null,
  primary key (person, bot, page)
);

alter table presence_pages enable row level security;
grant select, insert, update, delete on presence_pages to confab_person;
create policy presence_pages_own on presence_pages for all to confab_person
  using (person = current_setting('app.person', true))
  with check (person = current_setting('app.person', true));

-- The window: the last events (200 by default), in `seq` order. Older ones are deleted as new ones
-- come. An event is what src/core/presence/protocol.ts calls a WindowEvent, as JSON.
create table presence_events (
  person text not null check (person <> ''),
  bot text not null,
  seq bigint not null check (seq > 0),
  body jsonb not null,
  created_at timestamptz not null default now(),
  primary key (person, bot, seq)
);

alter table presence_events enable row level security;
grant select, insert, delete on presence_events to confab_person;
create policy presence_events_own on presence_events for all to confab_person
  using (person = current_setting('app.person', true))
  with check (person = current_setting('app.person', true));

-- Checkpoints, one per conversation (the page's key for it): the latest summary, and how many lines
-- were said since it was taken. The door puts the summary before the last 32 messages.
create table presence_checkpoints (
  person text not null check (person <> ''),
  bot text not null,
  conversation text not null,
  summary text,
  lines_since integer not null default 0 check (lines_since >= 0),
  updated_at timestamptz not null default now(),
  primary key (person, bot, conversation)
);

alter table presence_checkpoints enable row level security;
grant select, insert, update on presence_checkpoints to confab_person;
create policy presence_checkpoints_own on presence_checkpoints for all to confab_person
  using (person = current_setting('app.person', true))
  with check (person = current_setting('app.person', true));
