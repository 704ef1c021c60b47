-- Every change to a memory is said on the channel `confab_memories` as it commits, so a server that
-- holds a person's memories in process for recall (server/memory/heldMemories.ts) hears what another
-- transaction — its own, another server's, the memory app's `confab_remember`, a person forgetting
-- one, a person's account going with all of theirs — has added or taken away. The payload is small
-- and names the row, never its words: `{"op":"insert"|"update"|"delete","person":…,"bot":…,"id":…}`.
create function confab_memory_changed() returns trigger
language plpgsql
as $$
declare
  changed memories := coalesce(new, old);
begin
  perform pg_notify('confab_memories', json_build_object('op', lower(tg_op), 'person', changed.person, 'bot', changed.bot, 'id', changed.id)::text);
  return null;
end;
$$;

create trigger memories_changed after insert or update or delete on memories
  for each row execute function confab_memory_changed();
