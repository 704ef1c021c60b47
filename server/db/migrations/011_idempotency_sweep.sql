-- A write's idempotency key and its recorded result are kept as long as a retry of its turn can
-- come (a day, `IDEMPOTENCY_KEPT_MS` in server/verbs/executor.ts) and then swept: the key and the
-- output are set to null, and the row stays as the record that the app was used (recent apps).
-- The sweep runs as the server; a person still only selects and inserts their own calls.
-- This index holds only rows whose key is still kept, so the sweep reads no more than it clears.
create index verb_calls_keyed on verb_calls (created_at) where idem_key is not null;
