-- A run stops at the confirmation gate: the destructive call it was about to make is kept as a
-- pending action of the person's, held for the run (up to a day rather than a turn's minute), and
-- the run waits, held by no worker, until the person answers — then it is queued again with the
-- answer written as the step, or stays stopped if it was cancelled meanwhile.
alter table pending_actions add column run uuid references runs (id) on delete cascade;
alter table runs add column waiting_action uuid;
create index runs_waiting on runs (updated_at) where state = 'waiting';
