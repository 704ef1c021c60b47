-- A bot that wakes a person (`hears:` in its file) runs for them only once they allow it, and their
-- allowing is a schedule of theirs: `wake` names the file's entry (a digest of its schedule and what
-- it asks, `server/botHears.ts`), so its clock is kept per person on that row, by the same rule as
-- every schedule's. One allowing per person, bot and entry at a time, whichever tab or instance
-- asks. A "not now" is kept too, as a row already cancelled, so the page does not ask again; stopping
-- one is cancelling it, as for any schedule.
alter table schedules add column wake text;
create unique index schedules_one_wake on schedules (person, bot, wake) where wake is not null and state = 'active';
create index schedules_wakes on schedules (person, bot) where wake is not null;

create policy schedules_decline_wake on schedules for insert to confab_person
  with check (person = current_setting('app.person', true) and state = 'cancelled' and wake is not null and next_at is null and last_fired_at is null);

-- `until` is a day in the schedule's zone, as the person said it, no longer an instant read as UTC
-- (which ended "until Friday" in Sydney a day early): the day it was written as is kept.
update schedules
   set recurrence = (recurrence - 'untilMs') || jsonb_build_object('until', to_char(to_timestamp((recurrence->>'untilMs')::double precision / 1000) at time zone 'UTC', 'YYYY-MM-DD'))
 where recurrence ? 'untilMs';
