-- What a person has told a bot to forget, kept only as a digest: once a memory is forgotten, the
-- same words in their earlier questions (`memory: person`) are not handed to the bot either. The
-- words themselves are not kept anywhere — a digest cannot be read back into them.
create table forgotten (
  person text not null check (person <> ''),
  bot text not null,
  digest bytea not null,
  forgotten_at timestamptz not null default now(),
  primary key (person, bot, digest)
);

alter table forgotten enable row level security;
grant select, insert on forgotten to confab_person;
create policy forgotten_read on forgotten for select to confab_person
  using (person = current_setting('app.person', true));
create policy forgotten_write on forgotten for insert to confab_person
  with check (person = current_setting('app.person', true));
