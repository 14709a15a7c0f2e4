-- The other session of pg_lock: lock row 1, tell bin/hold (through the
-- FIFO it named in $HOLD_FIFO), keep the lock 50 ms, commit.
BEGIN;
SELECT 1 FROM acct WHERE id = 1 FOR UPDATE;
\! echo locked >"$HOLD_FIFO"
SELECT pg_sleep(0.05);
COMMIT;
