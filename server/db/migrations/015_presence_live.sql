-- The active page's live state, kept on its seat only when it is too large for a NOTIFY payload
-- (Postgres takes at most 8000 bytes): the notification then names it by its stamp and the
-- instances that hear it read it here. The latest only; it is a passing state, never a record.
-- `{ "stamp": text, "live": { ... } }` or null. The seat's own policy covers it.
alter table presence_seats add column live jsonb;
