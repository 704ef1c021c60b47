-- Two kinds of reservation beside a person's answer. The site's windows over everybody
-- (CONFAB_SITE_LIMITS) are counted as one more owner of reservations and tallies, `person` = '*site',
-- a name no person can have (local persons and Supabase users are ids of letters, digits and
-- dashes), so the admission statements count them as they count a person's. And a sentence of the
-- paid voice (/api/speak) holds and spends money in the same windows without being an answer: its
-- `answers` is 0, so it counts against spend ceilings and never against answer ceilings.
alter table reservations add column answers smallint not null default 1 check (answers in (0, 1));
