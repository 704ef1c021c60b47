-- Each memory keeps its embedder's name and width, and recall compares like with like only.
--
-- * `embedders` names every space a memory's vector may be in, with its width (how many numbers carry
--   meaning). A name is one space for good: an embedder whose vectors change takes a new name. The
--   server registers its embedder at start (`registerEmbedder`); a memory of an unregistered
--   embedder is refused.
-- * Embedders hand out 384-wide vectors (the width `confab_remember` and every caller know); one
--   whose space is narrower fills the leading numbers and leaves the rest 0. The trigger below keeps
--   only the embedder's width, and refuses a vector with anything past it, so `dimensions` is always
--   the stored vector's true width.
-- * One HNSW index per width, each over only the memories of that width: a 100-wide search compares
--   100 numbers, not 384, and a graph never links vectors of different widths. A width without an
--   index here is still recalled, exactly, through memories_owner.

create table embedders (
  name text primary key check (name <> ''),
  dimensions smallint not null check (dimensions between 1 and 384),
  registered_at timestamptz not null default now()
);
-- The server's own, as memories are; a person's transaction may read which spaces exist.
alter table embedders enable row level security;
grant select on embedders to confab_person;
create policy embedders_read on embedders for select to confab_person using (true);

insert into embedders (name, dimensions) values ('hash-v1', 384);
-- Every memory so far is 384 wide, whoever made it (`hash-v1`, `endpoint:<model>`).
insert into embedders (name, dimensions) select distinct embedder, 384 from memories on conflict (name) do nothing;

drop index memories_nearest;
alter table memories alter column embedding type vector;
alter table memories add column dimensions smallint;
update memories set dimensions = 384;
alter table memories alter column dimensions set not null;
alter table memories add constraint memories_embedder foreign key (embedder) references embedders (name);
alter table memories add constraint memories_width check (vector_dims(embedding) = dimensions);

create function confab_memory_width() returns trigger
language plpgsql
security definer
set search_path = public
as $$
declare
  width smallint;
  given integer := vector_dims(new.embedding);
begin
  select dimensions into width from embedders where name = new.embedder;
  if width is null then
    raise exception 'the embedder % is not registered', new.embedder using errcode = '23503';
  end if;
  if given < width then
    raise exception 'a vector of % is % wide, not %', new.embedder, given, width using errcode = '23514';
  end if;
  if given > width then
    if vector_norm(subvector(new.embedding, width + 1, given - width)) <> 0 then
      raise exception 'a vector of % has values past its % dimensions', new.embedder, width using errcode = '23514';
    end if;
    new.embedding := subvector(new.embedding, 1, width);
  end if;
  new.dimensions := width;
  return new;
end
$$;

create trigger memories_width before insert or update of embedder, embedding on memories
  for each row execute function confab_memory_width();

-- Approximate nearest neighbours by cosine distance, one index per shipped width. Recall names the
-- width in its query (`embedding::vector(N)` and `dimensions = N`), which is how the planner knows
-- these partial indexes answer it.
create index memories_nearest_384 on memories using hnsw ((embedding::vector(384)) vector_cosine_ops) where dimensions = 384;
create index memories_nearest_100 on memories using hnsw ((embedding::vector(100)) vector_cosine_ops) where dimensions = 100;
