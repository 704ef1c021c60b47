-- Work belongs to somebody who is still there. When each person was last seen (a request made as
-- them: a grant minted by `POST /api/start`), and whether their schedules were paused while they
-- were away — so that on their return they are told so, once. Written by the server alone.
create table persons_seen (
  person text primary key check (person <> ''),
  seen_at timestamptz not null,
  -- When a firing of theirs was first passed over because they had been away too long; null while
  -- nothing of theirs waits to be told.
  paused_at timestamptz
);
alter table persons_seen enable row level security;

-- Persons who already keep schedules count as seen now, rather than as never seen: the first
-- look after this migration must not pause everybody.
insert into persons_seen (person, seen_at)
  select distinct person, now() from schedules where state = 'active'
  on conflict (person) do nothing;

-- The site's cap on schedules (`CONFAB_SITE_SCHEDULES`) is checked in the person's own transaction,
-- where row level security shows them only their own rows: this tells anybody how many active
-- schedules the site holds, and nothing else.
create function confab_site_schedules()
returns integer
language sql
stable
security definer
set search_path = public
as $$ select count(*)::int from schedules where state = 'active' $$;
revoke all on function confab_site_schedules() from public;
grant execute on function confab_site_schedules() to confab_person;

-- An operator's command lists runs and schedules by state.
create index runs_by_state on runs (state, created_at);
