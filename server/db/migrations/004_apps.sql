-- What the apps in server/apps/ keep, and the one way a person's transaction may add a memory.
-- Every table is the person's own under row level security, as in 001: the executor runs each verb
-- in the person's transaction (`asPerson`), so a verb can only ever touch its own person's rows.

-- The `lists` app: a person's named lists ("shopping", "todo"), one row per item, in the order the
-- items were added (`seq`). A list exists while it has items. `list` is the normalised name and
-- `item_key` the item's comparison form (lower-case, spaces collapsed), so adding "Milk" to a list
-- that has "milk" adds nothing. Lists are the person's, not a bot's: any bot may read the shopping list.
create table list_items (
  id uuid primary key default gen_random_uuid(),
  seq bigint generated always as identity,
  person text not null check (person <> ''),
  list text not null check (list <> ''),
  item text not null check (item <> ''),
  item_key text not null check (item_key <> ''),
  created_at timestamptz not null default now(),
  unique (person, list, item_key)
);
create index list_items_order on list_items (person, list, seq);

alter table list_items enable row level security;
grant select, insert, delete on list_items to confab_person;
create policy list_items_own on list_items for all to confab_person
  using (person = current_setting('app.person', true))
  with check (person = current_setting('app.person', true));

-- `memory.remember`: the server keeps something a person asked a bot to remember, in the person's own
-- transaction. `memories` still has no insert policy for confab_person (a client must never write a
-- memory), so this function is the only door, and it takes no person: it runs as the table's owner
-- (security definer) and writes the transaction's own person, `app.person`, which only the server
-- sets. Whoever can call it can only ever add a memory in their own name, the same as `rememberLine`.
create function confab_remember(for_bot text, said text, embedder_name text, embedding vector)
returns uuid
language plpgsql
security definer
set search_path = public
as $$
declare
  who text := current_setting('app.person', true);
  remembered uuid;
begin
  if who is null or who = '' then
    raise exception 'confab_remember runs only in a person''s transaction' using errcode = '42501';
  end if;
  insert into memories (person, bot, text, embedder, embedding)
    values (who, for_bot, said, embedder_name, embedding)
    returning id into remembered;
  return remembered;
end
$$;

revoke all on function confab_remember(text, text, text, vector) from public;
grant execute on function confab_remember(text, text, text, vector) to confab_person;
