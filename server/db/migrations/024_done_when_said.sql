-- Done when it says done, whatever the model says the second time; and forgotten is forgotten.

-- What each model step of a turn said (its text) and asked for (its tool calls), kept under the
-- turn key (`turnKeyOf`, already scoped by person, bot and conversation) the moment the step ends,
-- before any of its calls runs: a retry of the turn uses the recorded step, not the model's new
-- wording, so its writes have the first try's inputs and keys. The first try to record a step
-- wins. Swept with the write keys after a day (`IDEMPOTENCY_KEPT_MS`), by the server.
create table turn_steps (
  person text not null check (person <> ''),
  turn_key text not null,
  step int not null check (step >= 1),
  text text not null,
  tool_calls jsonb not null,
  created_at timestamptz not null,
  primary key (person, turn_key, step)
);
create index turn_steps_created on turn_steps (created_at);

alter table turn_steps enable row level security;
grant select, insert on turn_steps to confab_person;
create policy turn_steps_own on turn_steps for all to confab_person
  using (person = current_setting('app.person', true))
  with check (person = current_setting('app.person', true));

-- One pending question per (turn, verb, target): a digest of the three (`pendingTargetOf`), set for
-- a turn's questions. A retried turn that asks again gets the question already kept, answered or
-- not, so two yeses cannot run one thing twice. A run's questions have none.
alter table pending_actions add column target text;
create unique index pending_actions_one_per_target on pending_actions (person, target) where target is not null;

-- What the person had a bot forget, as it can be found in what was said: for each phrase (a
-- forgotten memory's words, as the bot says them back, and the words `memory.forget` was asked
-- about), how many words it has and a digest of them, lower-cased and joined by one space. A line
-- mentions it when some run of that many of its words digests the same. The words themselves are
-- still kept nowhere.
create table forgotten_phrases (
  person text not null check (person <> ''),
  bot text not null,
  words int not null check (words >= 1),
  digest bytea not null,
  forgotten_at timestamptz not null default now(),
  primary key (person, bot, digest)
);

alter table forgotten_phrases enable row level security;
grant select, insert on forgotten_phrases to confab_person;
create policy forgotten_phrases_read on forgotten_phrases for select to confab_person
  using (person = current_setting('app.person', true));
create policy forgotten_phrases_write on forgotten_phrases for insert to confab_person
  with check (person = current_setting('app.person', true));

-- The lines a bot may no longer read: each mentions a forgotten phrase, marked when the phrase was
-- forgotten or when the line was saved after it. The person still reads them in their transcript.
create table forgotten_lines (
  person text not null check (person <> ''),
  line uuid not null references lines (id) on delete cascade,
  primary key (person, line)
);
create index forgotten_lines_line on forgotten_lines (line);

alter table forgotten_lines enable row level security;
grant select, insert on forgotten_lines to confab_person;
create policy forgotten_lines_read on forgotten_lines for select to confab_person
  using (person = current_setting('app.person', true));
create policy forgotten_lines_write on forgotten_lines for insert to confab_person
  with check (person = current_setting('app.person', true));

-- The memories one turn forgot, so `memory.forget` counts what a turn forgets, not one call: the
-- second of eight calls of one each asks. Swept with the turn's steps.
create table turn_forgets (
  person text not null check (person <> ''),
  turn_key text not null,
  memory uuid not null,
  created_at timestamptz not null default now(),
  primary key (person, turn_key, memory)
);
create index turn_forgets_created on turn_forgets (created_at);

alter table turn_forgets enable row level security;
grant select, insert on turn_forgets to confab_person;
create policy turn_forgets_own on turn_forgets for all to confab_person
  using (person = current_setting('app.person', true))
  with check (person = current_setting('app.person', true));
