-- Choices to tap (common/conversation/choices.ts). An answer whose last lines are a `- ` list under
-- some words is kept as its words, with the choices apart in `choices` ({question, items}), cut once
-- as the line is kept, so nothing downstream reads its markdown again. Null: the line offers none.
alter table lines add column choices jsonb
  check (choices is null or (jsonb_typeof(choices -> 'items') = 'array' and jsonb_array_length(choices -> 'items') between 1 and 6));

-- A choice taken: who took which of a line's choices, and how (pressed or said). One per line, by
-- its key, so of two pages pressing at once exactly one gets through — one statement decides it, not
-- a read before a write — and the other is told the offer is gone. Written by the person under their
-- own session, only for an offer of theirs and a choice it has.
create table choices (
  line_id uuid primary key references lines (id) on delete cascade,
  person text not null check (person <> ''),
  choice int not null check (choice >= 0),
  via text not null check (via in ('press', 'voice')),
  created_at timestamptz not null default now()
);

alter table choices enable row level security;
grant select, insert on choices to confab_person;
create policy choices_read on choices for select to confab_person
  using (person = current_setting('app.person', true));
create policy choices_take on choices for insert to confab_person
  with check (
    person = current_setting('app.person', true)
    and exists (
      select 1 from lines l
       where l.id = line_id and l.person = current_setting('app.person', true) and l.who = 'assistant'
         and l.choices is not null and choice < jsonb_array_length(l.choices -> 'items')
    )
  );
