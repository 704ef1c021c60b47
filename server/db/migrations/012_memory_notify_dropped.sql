-- Recall reads the database every time (server/memory/context.ts): no server holds a copy of a
-- person's memories any more, so nobody listens on `confab_memories`. Migration 010's trigger and
-- its function go — behind a transaction-mode pooler (Supabase's port 6543) a NOTIFY never reaches
-- a listener, so a copy kept current by it could go on recalling what a person forgot. 010 stays as
-- it was applied; this undoes it.
drop trigger if exists memories_changed on memories;
drop function if exists confab_memory_changed();
