-- A person starts a run of their own (the `tasks.start` verb, in their transaction), and keeps
-- schedules that start one at each occurrence.
--
-- One busy run per person, bot and conversation: a second start while one is queued, running or
-- waiting is refused by the index itself, so two instances cannot both start one (the seed's guard
-- against a task invented over work in flight).
create unique index runs_one_busy on runs (person, bot, coalesce(conversation, ''))
  where state in ('queued', 'running', 'waiting');

-- The zone the person spoke in, for the verbs a run calls; and the schedule that started it.
alter table runs add column time_zone text not null default 'UTC';
alter table runs add column schedule uuid;

grant insert (person, bot, conversation, asked, script, max_steps, max_spend_usd, max_minutes, time_zone, created_at, updated_at) on runs to confab_person;
create policy runs_start_own on runs for insert to confab_person
  with check (person = current_setting('app.person', true) and state = 'queued' and lease_holder is null and schedule is null);

-- A schedule: what to do, and when (the recurrence, as `server/runs/recurrence.ts` reads it:
-- { every: 'day' | 'weekday' | 'week' | 'hour', on?: [0-6], at?: 'HH:MM', zone, until? }).
-- Its clock is its own: `next_at` is the next occurrence not yet fired, moved on each firing to the
-- first occurrence after now, so a server down for a week fires once when it is back, never seven
-- times; a new schedule's clock starts at its creation.
create table schedules (
  id uuid primary key default gen_random_uuid(),
  person text not null check (person <> ''),
  bot text not null,
  conversation text,
  asked text not null,
  -- How it was said ("every weekday at 8:00"), for listing it back.
  said text not null,
  recurrence jsonb not null,
  next_at timestamptz,
  last_fired_at timestamptz,
  state text not null default 'active' check (state in ('active', 'cancelled', 'over')),
  created_at timestamptz not null default now()
);
create index schedules_due on schedules (next_at) where state = 'active';
create index schedules_person on schedules (person, bot, created_at);

alter table schedules enable row level security;
grant select, insert on schedules to confab_person;
grant update (state) on schedules to confab_person;
create policy schedules_read_own on schedules for select to confab_person
  using (person = current_setting('app.person', true));
create policy schedules_make_own on schedules for insert to confab_person
  with check (person = current_setting('app.person', true) and state = 'active' and last_fired_at is null);
create policy schedules_cancel_own on schedules for update to confab_person
  using (person = current_setting('app.person', true) and state = 'active')
  with check (person = current_setting('app.person', true) and state = 'cancelled');
