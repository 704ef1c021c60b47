-- Running totals for admission: per person and bot, how many answers were admitted and what they
-- cost in each UTC minute, hour and day they began in. Admitting an answer adds up a window from the
-- day, hour and minute totals wholly inside it and reads rows only for the part of one minute at its
-- far edge (db/reservations.ts), so it reads as much for somebody's thousandth answer of the month as
-- for their first. Reserving adds 1 to `answers`; recording usage adds its cost to `spent`; a hold
-- for an answer still running is read from its reservation, as before. The server's own: no policy
-- and no privilege for confab_person.
create table tallies (
  person text not null check (person <> ''),
  bot text not null,
  grain text not null check (grain in ('minute', 'hour', 'day')),
  starts_at timestamptz not null,
  answers integer not null default 0 check (answers >= 0),
  spent numeric not null default 0 check (spent >= 0),
  primary key (person, bot, grain, starts_at)
)
-- Room on each page for a total's next versions: an update that stays on its page (HOT) adds no
-- index entry, and the page sheds old versions itself. PGlite never vacuums, so without the room
-- every update of a day's total would leave an index entry behind for admission to step over.
with (fillfactor = 50);

alter table tallies enable row level security;

-- What is already recorded, totalled the same way.
insert into tallies (person, bot, grain, starts_at, answers)
select r.person, r.bot, g.grain, date_trunc(g.grain, r.reserved_at, 'UTC'), count(*)
  from reservations r cross join (values ('minute'), ('hour'), ('day')) as g(grain)
 group by 1, 2, 3, 4;

insert into tallies (person, bot, grain, starts_at, spent)
select u.person, u.bot, g.grain, date_trunc(g.grain, u.started_at, 'UTC'), sum(u.cost)
  from usage u cross join (values ('minute'), ('hour'), ('day')) as g(grain)
 where u.cost > 0
 group by 1, 2, 3, 4
on conflict (person, bot, grain, starts_at) do update set spent = tallies.spent + excluded.spent;

-- The holds that may still count, found without stepping over settled ones: a hold with an end is
-- found by its end (only the answers of the last few minutes can still be holding), one without (a
-- caller that gave no `holdMs`) by when it began.
create index reservations_holding on reservations (person, bot, hold_until) where hold > 0;
create index reservations_holding_unbounded on reservations (person, bot, reserved_at) where hold > 0 and hold_until is null;
