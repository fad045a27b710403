-- A least-privilege setup for Baton's team schema, run once by the role that owns it, after
-- `baton team init --from postgres://OWNER@HOST/DATABASE` has created the tables.
-- The README shows this file; tests/suite/sync.rs runs it (with its own role names).

-- The machines' group: append events, register and move their own cursors, keep their own
-- usage rows equal to their mirror's, nothing else.
CREATE ROLE baton_writer NOLOGIN;
GRANT SELECT ON baton_schema, baton_budget TO baton_writer;
GRANT SELECT, INSERT ON baton_events TO baton_writer;
GRANT SELECT, INSERT, UPDATE, DELETE ON baton_usage TO baton_writer;
GRANT SELECT, INSERT, UPDATE ON baton_machines, baton_machine_sessions TO baton_writer;
GRANT SELECT, INSERT, UPDATE, DELETE ON baton_sync_cursors TO baton_writer;

-- One login per machine (a laptop, a CI runner). Row security binds a machine id to the first
-- role that synced it: that role alone adds rows for it.
CREATE ROLE laptop_ana LOGIN PASSWORD 'change me' IN ROLE baton_writer;
CREATE ROLE ci_runner_7 LOGIN PASSWORD 'change me' IN ROLE baton_writer;

-- The lead's dashboards: `baton team list|attention|show` read, and write nothing.
CREATE ROLE baton_reader LOGIN PASSWORD 'change me';
GRANT SELECT ON baton_schema, baton_machines, baton_events, baton_machine_sessions, baton_usage,
    baton_budget TO baton_reader;

-- The team budget (`baton team budget set`) is the owner's to set: no other role may write it.
