-- Tables of the PostgreSQL scenarios (tests/real/test_postgres).
-- big: 50 000 rows of ~230 bytes (1 516 pages); k is a permutation of id,
-- so the rows of a k range lie on as many different pages.
CREATE TABLE big (id int PRIMARY KEY, k int NOT NULL, pad text NOT NULL);
INSERT INTO big SELECT i, (i * 7919) % 50000, repeat('x', 200) FROM generate_series(0, 49999) i;
CREATE INDEX big_k ON big (k);
-- srt: 16 000 md5 strings to sort (~10 ms of CPU).
CREATE TABLE srt AS SELECT i AS id, md5(i::text) AS h FROM generate_series(1, 16000) i;
-- acct: rows to update by key.
CREATE TABLE acct (id int PRIMARY KEY, bal int NOT NULL);
INSERT INTO acct SELECT i, 0 FROM generate_series(1, 100) i;
VACUUM ANALYZE;
CHECKPOINT;
