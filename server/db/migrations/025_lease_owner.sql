-- The lease's column is named for what its value is, the lease owner: the server instance running
-- the run's next step (docs/glossary.md). Renaming keeps its values, and the policy that names it
-- (`runs_start_own`, 017) follows the column, as Postgres stores a policy's columns by number.
alter table runs rename column lease_holder to lease_owner;
