-- A run says what it comes to in the language the person asked in (the page's setting, as the
-- turn resolved it against the bot's languages), not only in its bot's: a schedule keeps the
-- language it was made in for the runs it starts. Null: the bot's own language.
alter table runs add column language text;
alter table schedules add column language text;
grant insert (language) on runs to confab_person;
