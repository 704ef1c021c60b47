-- What each outside tool was first said to be (`server/outside/keptRisks.ts`): an MCP server's
-- annotations, kept per app and tool for the whole site, so every instance over this database holds
-- a server to the same word, and a server that later claims a tool is safer is held to the stricter.
-- The site's, not a person's: written and read by the server alone, as `reservations` (001) and
-- `tallies` (009) are — row level security on, and nothing granted to confab_person.
create table outside_risks (
  app text not null check (app <> ''),
  tool text not null check (tool <> ''),
  risk text not null check (risk in ('read', 'write', 'destructive')),
  first_seen_at timestamptz not null,
  -- When it was last raised above what was first seen; null while it is still that.
  raised_at timestamptz,
  primary key (app, tool)
);
alter table outside_risks enable row level security;

-- How much a risk lets change: read < write < destructive.
create function confab_risk_rank(risk text) returns integer
language sql
immutable
as $$ select case risk when 'read' then 0 when 'write' then 1 when 'destructive' then 2 end $$;

-- Only ever raised, whoever writes: a kept risk made safer would take a server's later word after all.
create function confab_outside_risk_raised() returns trigger
language plpgsql
as $$
begin
  if confab_risk_rank(new.risk) < confab_risk_rank(old.risk) then
    raise exception 'the kept risk of %.% is %; it is only ever raised, never lowered to %', old.app, old.tool, old.risk, new.risk using errcode = '23514';
  end if;
  return new;
end
$$;

create trigger outside_risks_raised before update of risk on outside_risks
  for each row execute function confab_outside_risk_raised();
