-- Whether the person of the transaction keeps Confab on their devices (a row of `people`), asked in
-- their own transaction, where `people` is out of sight: a grant minted before they made a passkey
-- still says they were a bare cookie, and what only people may have (schedules, long runs) asks this.
create function confab_kept_on_devices()
returns boolean
language sql
stable
security definer
set search_path = public
as $$ select exists (select 1 from people where person = current_setting('app.person', true)) $$;
revoke all on function confab_kept_on_devices() from public;
grant execute on function confab_kept_on_devices() to confab_person;
