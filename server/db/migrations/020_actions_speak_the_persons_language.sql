-- A question kept for the person's yes or no is answered in the language it was asked in: what was
-- done, left or no longer open, and the consequence the app says after it. Null: the bot's own.
alter table pending_actions add column language text;
