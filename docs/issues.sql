-- The issues table of `xlprobe issues`, computed from the fleet table
-- `lags` (xlprobe export --csv --table lags, or --jsonl) of any number of
-- traces from any number of hosts. Standard SQL: SQLite
-- (tests/root/test_issues.c), DuckDB (tests/unit/test_fleet_duckdb.c),
-- ClickHouse through chDB (tests/unit/test_fleet_chdb.c) and PostgreSQL
-- (tests/unit/test_fleet_postgres.c) run it as it is and give the rows of
-- `xlprobe issues` (docs/issues.md shows how to load `lags` in each).
-- Each row: an issue (one fingerprint: landmark, culprit, factor by name),
-- its sessions (traces), hosts, builds (distinct build-ids), lagging runs,
-- longest lag, total perceptible lag (the ranking) and first / last seen.
-- The lag percentiles need an engine's own function, each the linear
-- interpolation issues uses: quantile_cont(latency_ns, 0.5) in DuckDB,
-- quantileExactInclusive(0.5)(latency_ns) in ClickHouse,
-- percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ns) in PostgreSQL.
SELECT fingerprint,
       landmark,
       function,
       factor,
       COUNT(DISTINCT trace_id) AS sessions,
       COUNT(DISTINCT host) AS hosts,
       COUNT(DISTINCT NULLIF(build_id, '')) AS builds,
       COUNT(*) AS runs,
       MAX(latency_ns) AS lag_max_ns,
       SUM(latency_ns) AS impact_ns,
       MIN(start_unix_ns) AS first_seen_unix_ns,
       MAX(start_unix_ns) AS last_seen_unix_ns
FROM lags
WHERE NULLIF(fingerprint, '') IS NOT NULL
GROUP BY fingerprint, landmark, function, factor
ORDER BY impact_ns DESC, fingerprint;
