-- Personal MCP tokens: what lets an MCP client (Claude Desktop, Claude Code, …) act for one person,
-- through the bots they chose. The token itself is shown once, when it is made, and never kept: the
-- row holds its SHA-256 (hex), which is what a request's Bearer is looked up by.
--
-- The lookup by hash runs as the server (`asServer`), before anybody is known: it is how the person
-- becomes known. Everything else is the person's own, under row level security: they make tokens in
-- their own name, list their own, and revoke their own. A revoked token stays listed as revoked and
-- can never be used again; nobody can un-revoke one, and no person's transaction can move
-- `last_used_at`, which only the server writes.

create table mcp_tokens (
  id uuid primary key default gen_random_uuid(),
  person text not null check (person <> ''),
  -- What the person called it ("Claude Desktop on my laptop"), so they know which one to revoke.
  name text not null check (name <> '' and char_length(name) <= 64),
  token_hash text not null unique check (token_hash ~ '^[0-9a-f]{64}$'),
  -- The bots the token acts through, in the person's order: its tools are their apps' verbs.
  bots text[] not null check (cardinality(bots) between 1 and 16),
  -- The person's IANA time zone as their page reported it when the token was made: a reminder set
  -- over MCP is read in it.
  time_zone text not null default 'UTC',
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index mcp_tokens_person on mcp_tokens (person, created_at);

alter table mcp_tokens enable row level security;
grant select, insert on mcp_tokens to confab_person;
grant update (revoked_at) on mcp_tokens to confab_person;
create policy mcp_tokens_read on mcp_tokens for select to confab_person
  using (person = current_setting('app.person', true));
create policy mcp_tokens_make on mcp_tokens for insert to confab_person
  with check (person = current_setting('app.person', true) and revoked_at is null and last_used_at is null);
-- Revoking is the only change a person makes, once: a live token of theirs becomes revoked.
create policy mcp_tokens_revoke on mcp_tokens for update to confab_person
  using (person = current_setting('app.person', true) and revoked_at is null)
  with check (person = current_setting('app.person', true) and revoked_at is not null);
