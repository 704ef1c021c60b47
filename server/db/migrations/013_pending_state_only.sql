-- A person's transaction may change one thing about a pending action: its `state`, as the approve
-- and deny routes do. The rest (the verb, its input, the question, the expiry) is what the person
-- was asked about, and stays exactly that: with UPDATE on every column, a statement run as the
-- person could have rewritten the input of an action they were about to approve.
revoke update on pending_actions from confab_person;
grant update (state) on pending_actions to confab_person;
