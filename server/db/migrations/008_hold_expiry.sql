-- A spend hold lasts only as long as its answer can: an answer is cut at its `minutes` ceiling, so a
-- hold that was never settled (its server crashed mid-answer) stops counting against the person's
-- spend windows once `hold_until` has passed, instead of for the whole window (up to 30 days).
-- Reservations from before this column have none, and their holds count as they always did.
alter table reservations add column hold_until timestamptz;
