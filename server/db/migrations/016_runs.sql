-- Work that outlives a turn: a run is a row, and each step it takes is a row under it. A worker in
-- some server instance claims a run (a lease: who holds it, until when), takes one step at a time —
-- one model call, one tool call, or the saying of the answer — and writes each down before the next,
-- so a worker that dies is replaced by another that carries on from the last step written.
--
-- The person reads their own runs and steps, and may change one thing: a run of theirs that is not
-- over yet, to 'cancelled'. Everything else — claiming, leases, steps, the ending — is the server's.
create table runs (
  id uuid primary key default gen_random_uuid(),
  person text not null check (person <> ''),
  bot text not null,
  -- The page's key for the conversation the run was asked for in.
  conversation text,
  -- What was asked, in the person's words.
  asked text not null,
  -- The stand-in's script when no model is bought: the verb calls the phrasing named, in order
  -- (`[{ "verb": text, "input": {...} }]`); null when a model decides.
  script jsonb,
  max_steps integer not null check (max_steps > 0),
  max_spend_usd numeric(12, 6) not null check (max_spend_usd >= 0),
  max_minutes integer not null check (max_minutes > 0),
  state text not null default 'queued'
    check (state in ('queued', 'running', 'waiting', 'finished', 'failed', 'cancelled', 'out_of_budget')),
  lease_holder text,
  lease_until timestamptz,
  -- The answer, or the sentence the run ended with.
  answer text,
  -- When a worker first took it: the run's minutes are counted from here.
  started_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index runs_claimable on runs (created_at) where state in ('queued', 'running');
create index runs_person on runs (person, bot, conversation, created_at);

alter table runs enable row level security;
grant select on runs to confab_person;
grant update (state, updated_at) on runs to confab_person;
create policy runs_read_own on runs for select to confab_person
  using (person = current_setting('app.person', true));
create policy runs_cancel_own on runs for update to confab_person
  using (person = current_setting('app.person', true) and state in ('queued', 'running', 'waiting'))
  with check (person = current_setting('app.person', true) and state = 'cancelled');

-- One row per step, numbered from 1 within its run. (run, seq) is the key, so of two workers that
-- both believe they hold a run only one can write its next step.
create table run_steps (
  run uuid not null references runs (id) on delete cascade,
  seq integer not null check (seq > 0),
  kind text not null check (kind in ('model', 'tool', 'say')),
  -- model: { model, text, toolCalls: [{ id, verb, input }] }; tool: { callId, verb, input, outcome };
  -- say: { text, ending }.
  body jsonb not null,
  -- The idempotency key a tool step's write used: derived from the run and the step.
  write_key text,
  spent_usd numeric(12, 6) not null default 0,
  created_at timestamptz not null default now(),
  primary key (run, seq)
);

alter table run_steps enable row level security;
grant select on run_steps to confab_person;
create policy run_steps_read_own on run_steps for select to confab_person
  using (exists (select 1 from runs where runs.id = run_steps.run and runs.person = current_setting('app.person', true)));
