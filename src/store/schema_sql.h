// Private to src/store: the SQL of each schema version, as schema.cc applies it (placeholders in
// braces are filled there). Both dialects unless a name says otherwise.
#pragma once

namespace aicost::store::sql {

// {ID} is the auto-numbered primary key; every other type name means the same in both dialects.
inline constexpr const char* kSchemaV1 = R"SQL(
CREATE TABLE sources (
  id {ID},
  path TEXT NOT NULL,
  sha256 TEXT NOT NULL UNIQUE,
  bytes BIGINT NOT NULL,
  format TEXT NOT NULL,
  loaded_at TEXT NOT NULL,
  rows BIGINT NOT NULL DEFAULT 0,
  rejected BIGINT NOT NULL DEFAULT 0,
  warnings BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX sources_path ON sources (path);
CREATE TABLE tagsets (
  id {ID},
  canonical TEXT NOT NULL UNIQUE
);
CREATE TABLE tagset_tags (
  tagset_id BIGINT NOT NULL REFERENCES tagsets (id),
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (tagset_id, key, value)
);
-- Every distinct value of the *_sid columns' text, once. Never deleted (a replaced source's
-- strings stay), so ids only grow and a store can refresh its cache with `id > last seen`.
CREATE TABLE strings (
  id {ID},
  value TEXT NOT NULL UNIQUE
);
-- Each *_sid column is the id of its text in `strings` (no REFERENCES: 21 lookups per row would
-- cost more than the row). resource_id stays text: it takes about as many values as there are
-- resources, up to one per row, where a dictionary costs more than it saves. charges_text shows
-- the text.
CREATE TABLE charges (
  source_id BIGINT NOT NULL REFERENCES sources (id),
  line BIGINT NOT NULL,
  day INTEGER NOT NULL,
  period_start BIGINT NOT NULL,
  period_end BIGINT NOT NULL,
  billing_period_start BIGINT NOT NULL,
  billed BIGINT NOT NULL,
  effective BIGINT NOT NULL,
  list BIGINT NOT NULL,
  contracted BIGINT,
  pricing_quantity DOUBLE PRECISION,
  consumed_quantity DOUBLE PRECISION,
  gpu_hours DOUBLE PRECISION NOT NULL,
  tagset_id BIGINT NOT NULL,
  resource_id TEXT NOT NULL,
  currency_sid BIGINT NOT NULL,
  provider_sid BIGINT NOT NULL,
  billing_account_id_sid BIGINT NOT NULL,
  billing_account_name_sid BIGINT NOT NULL,
  sub_account_id_sid BIGINT NOT NULL,
  sub_account_name_sid BIGINT NOT NULL,
  service_name_sid BIGINT NOT NULL,
  service_category_sid BIGINT NOT NULL,
  region_id_sid BIGINT NOT NULL,
  resource_name_sid BIGINT NOT NULL,
  resource_type_sid BIGINT NOT NULL,
  sku_id_sid BIGINT NOT NULL,
  charge_category_sid BIGINT NOT NULL,
  charge_class_sid BIGINT NOT NULL,
  charge_frequency_sid BIGINT NOT NULL,
  pricing_category_sid BIGINT NOT NULL,
  commitment_discount_id_sid BIGINT NOT NULL,
  commitment_discount_status_sid BIGINT NOT NULL,
  pricing_unit_sid BIGINT NOT NULL,
  consumed_unit_sid BIGINT NOT NULL,
  charge_description_sid BIGINT NOT NULL
);
CREATE INDEX charges_source ON charges (source_id);
{CHARGES_TEXT};
-- The daily rollup (ledger/rollup.h), dimensions as ids like charges.
CREATE TABLE charge_daily (
  source_id BIGINT NOT NULL REFERENCES sources (id),
  day INTEGER NOT NULL,
  provider_sid BIGINT NOT NULL,
  billing_account_id_sid BIGINT NOT NULL,
  sub_account_id_sid BIGINT NOT NULL,
  service_name_sid BIGINT NOT NULL,
  service_category_sid BIGINT NOT NULL,
  region_id_sid BIGINT NOT NULL,
  resource_type_sid BIGINT NOT NULL,
  charge_category_sid BIGINT NOT NULL,
  charge_frequency_sid BIGINT NOT NULL,
  pricing_category_sid BIGINT NOT NULL,
  commitment_discount_status_sid BIGINT NOT NULL,
  currency_sid BIGINT NOT NULL,
  tagset_id BIGINT NOT NULL,
  billed BIGINT NOT NULL,
  effective BIGINT NOT NULL,
  list BIGINT NOT NULL,
  contracted BIGINT NOT NULL,
  gpu_hours DOUBLE PRECISION NOT NULL,
  rows BIGINT NOT NULL
);
CREATE INDEX charge_daily_source ON charge_daily (source_id);
CREATE INDEX charge_daily_day ON charge_daily (day);
CREATE TABLE gpu_samples (
  source_id BIGINT NOT NULL REFERENCES sources (id),
  line BIGINT NOT NULL,
  time BIGINT NOT NULL,
  metric TEXT NOT NULL,
  value DOUBLE PRECISION NOT NULL,
  host TEXT NOT NULL,
  gpu TEXT NOT NULL,
  uuid TEXT NOT NULL,
  model_name TEXT NOT NULL,
  namespace TEXT NOT NULL,
  pod TEXT NOT NULL,
  container TEXT NOT NULL,
  job TEXT NOT NULL
);
CREATE INDEX gpu_samples_source ON gpu_samples (source_id);
CREATE INDEX gpu_samples_host_time ON gpu_samples (host, time);
CREATE TABLE row_issues (
  source_id BIGINT NOT NULL REFERENCES sources (id),
  line BIGINT NOT NULL,
  column_name TEXT NOT NULL,
  severity TEXT NOT NULL,
  message TEXT NOT NULL
);
CREATE INDEX row_issues_source ON row_issues (source_id, line);
)SQL";

// Governance: each alert and anomaly goes out once (governance/budget.h alert keys); telemetry by
// GPU and hour (store/sample_rollup.h), filled from the samples already loaded.
inline constexpr const char* kSchemaV2 = R"SQL(
CREATE TABLE alerts_sent (
  key TEXT PRIMARY KEY,
  sent_at TEXT NOT NULL,
  payload TEXT NOT NULL
);
CREATE TABLE gpu_hourly (
  source_id BIGINT NOT NULL REFERENCES sources (id),
  hour BIGINT NOT NULL,
  host TEXT NOT NULL,
  gpu TEXT NOT NULL,
  metric TEXT NOT NULL,
  value_sum DOUBLE PRECISION NOT NULL,
  samples BIGINT NOT NULL
);
CREATE INDEX gpu_hourly_source ON gpu_hourly (source_id);
CREATE INDEX gpu_hourly_hour ON gpu_hourly (hour);
INSERT INTO gpu_hourly
  SELECT source_id, (time / 3600) * 3600, host, gpu, metric, SUM(value), COUNT(*) FROM gpu_samples
  GROUP BY source_id, (time / 3600) * 3600, host, gpu, metric;
)SQL";

// Alert claims (ledger::Store::claim_alerts): a row of alerts_sent is 'claimed' by one check
// until its lease ends (unix milliseconds), then 'sent'. Rows of before are sent.
inline constexpr const char* kSchemaV3Claims = R"SQL(
ALTER TABLE alerts_sent ADD COLUMN state TEXT NOT NULL DEFAULT 'sent';
ALTER TABLE alerts_sent ADD COLUMN claimed_by TEXT;
ALTER TABLE alerts_sent ADD COLUMN lease_until BIGINT;
)SQL";

// PostgreSQL refuses a btree entry over 2704 bytes (a third of an 8 KiB page, after compression):
// a tag set's canonical text of 30 tags of 100 characters, a 3 KB ChargeDescription, a long path
// or alert key failed the whole load. Unique keys over text are a SHA-256 of the text instead
// (aicost_digest: IMMUTABLE, as an index needs, which convert_to is not declared although its
// result is fixed by the database's encoding); lookups by value go through hash indexes, which
// hold a 4-byte hash of any length. The INSERTs' ON CONFLICT name the digest. gpu_samples_host_time
// goes: no query reads it (telemetry is read from gpu_hourly), and a host label can be long.
// SQLite has no such limit and keeps its indexes.
inline constexpr const char* kSchemaV3PgDigests = R"SQL(
CREATE FUNCTION aicost_digest(t text) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$SELECT sha256(convert_to(t, 'UTF8'))$$;
ALTER TABLE tagsets DROP CONSTRAINT tagsets_canonical_key;
CREATE UNIQUE INDEX tagsets_canonical ON tagsets (aicost_digest(canonical));
ALTER TABLE tagset_tags DROP CONSTRAINT tagset_tags_pkey;
CREATE UNIQUE INDEX tagset_tags_tag ON tagset_tags (tagset_id, aicost_digest(key), aicost_digest(value));
ALTER TABLE strings DROP CONSTRAINT strings_value_key;
CREATE UNIQUE INDEX strings_value ON strings (aicost_digest(value));
CREATE INDEX strings_value_lookup ON strings USING hash (value);
DROP INDEX sources_path;
CREATE INDEX sources_path ON sources USING hash (path);
DROP INDEX gpu_samples_host_time;
ALTER TABLE alerts_sent DROP CONSTRAINT alerts_sent_pkey;
CREATE UNIQUE INDEX alerts_sent_key ON alerts_sent (aicost_digest(key));
)SQL";

// FOCUS 1.3 Contract Commitment dataset (include/aicost/ledger/commitment.h): one row per term of
// a contract. Money in nano-units of currency as in charges (NULL: the term commits a quantity
// only); times in seconds since the epoch, UTC, [start, end).
inline constexpr const char* kSchemaV4Commitments = R"SQL(
CREATE TABLE IF NOT EXISTS contract_commitments (
  source_id BIGINT NOT NULL REFERENCES sources (id),
  line BIGINT NOT NULL,
  contract_id TEXT NOT NULL,
  commitment_id TEXT NOT NULL,
  category TEXT NOT NULL,
  type TEXT NOT NULL,
  description TEXT NOT NULL,
  currency TEXT NOT NULL,
  cost BIGINT,
  quantity DOUBLE PRECISION,
  unit TEXT NOT NULL,
  commitment_start BIGINT NOT NULL,
  commitment_end BIGINT NOT NULL,
  contract_start BIGINT NOT NULL,
  contract_end BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS contract_commitments_source ON contract_commitments (source_id);
)SQL";

// Deliveries (billing::ingest_delivery): a source that is a provider's delivery of an export
// records the export's key (provider, billing accounts, export name) and the billing periods it
// covers (BillingPeriodStart days, ISO, comma-separated), so that a re-delivery of a period can
// replace it. Sources loaded before, and plain file loads, have neither.
inline constexpr const char* kSchemaV5Deliveries = R"SQL(
ALTER TABLE sources ADD COLUMN export_key TEXT;
ALTER TABLE sources ADD COLUMN periods TEXT;
)SQL";

// PostgreSQL only: `charges` partitioned by month of `day` (docs/LEDGER.md, Scale). A query over a
// range of days reads only its months' partitions (the range is a literal in the plan), and a
// month can be detached or dropped as a whole. aicost_charges_month(day) makes the partition of a
// day's month when it is missing, CREATE then ATTACH: attaching takes SHARE UPDATE EXCLUSIVE on
// `charges`, which readers do not wait for (CREATE ... PARTITION OF would lock them out until the
// ingest commits). The migration moves every row in the one transaction of the migrations.
// `charge_daily`, about a hundredth of the charges, stays one table. SQLite keeps one table: it
// has no partitions, and its scans already read a window of days through the rollup or by rowid.
inline constexpr const char* kSchemaV6PgPartitions = R"SQL(
CREATE OR REPLACE FUNCTION aicost_charges_month(d integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  first date := date_trunc('month', date '1970-01-01' + d)::date;
  part text := 'charges_' || to_char(first, 'YYYY_MM');
BEGIN
  IF to_regclass(quote_ident(part)) IS NULL THEN
    EXECUTE format('CREATE TABLE %I (LIKE charges INCLUDING DEFAULTS)', part);
    EXECUTE format('ALTER TABLE charges ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', part,
                   first - date '1970-01-01', (first + interval '1 month')::date - date '1970-01-01');
  END IF;
END $$;
DROP VIEW IF EXISTS charges_text;
ALTER TABLE charges RENAME TO charges_v5;
ALTER INDEX charges_source RENAME TO charges_v5_source;
CREATE TABLE charges (LIKE charges_v5 INCLUDING DEFAULTS) PARTITION BY RANGE (day);
ALTER TABLE charges ADD CONSTRAINT charges_source_fkey FOREIGN KEY (source_id) REFERENCES sources (id);
CREATE INDEX charges_source ON charges (source_id);
SELECT aicost_charges_month(day) FROM (SELECT DISTINCT day FROM charges_v5) AS d;
INSERT INTO charges SELECT * FROM charges_v5;
DROP TABLE charges_v5;
{CHARGES_TEXT};
)SQL";

// The change journal (include/aicost/ledger/change.h): one row per change recorded; `day` as in
// charges (days since the epoch), `scope` and `guardrails` one term per line in their text form
// (ledger::scope_text, ledger::guardrail_text), parsed back on reading.
inline constexpr const char* kSchemaV7Changes = R"SQL(
CREATE TABLE IF NOT EXISTS changes (
  id {ID},
  day INTEGER NOT NULL,
  scope TEXT NOT NULL,
  lever TEXT NOT NULL,
  note TEXT NOT NULL,
  guardrails TEXT NOT NULL,
  added_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS changes_day ON changes (day);
)SQL";

// The consumed unit as a rollup dimension, with the sum of ConsumedQuantity (NULL counted 0, as
// the reports sum it), so that a report by consumed unit (the change journal's cost per 1M tokens)
// reads the rollup instead of every charge. The rollup is rebuilt from the charges, in the same
// groups a load makes ({DAILY_REBUILD}). `charges_gpu_day` holds only the GPU rows (gpu_hours > 0),
// by day: a query of the GPU rows of some days (the journal's useful GPU-hours) finds them, or
// that there are none, without reading every charge. A ledger without GPU rows pays nothing for it
// on ingest.
inline constexpr const char* kSchemaV8RollupUnit = R"SQL(
ALTER TABLE charge_daily ADD COLUMN consumed_unit_sid BIGINT NOT NULL DEFAULT 0;
ALTER TABLE charge_daily ADD COLUMN consumed_quantity DOUBLE PRECISION NOT NULL DEFAULT 0;
DELETE FROM charge_daily;
{DAILY_REBUILD};
CREATE INDEX charges_gpu_day ON charges (day) WHERE gpu_hours > 0;
)SQL";

// The daily rollup merged across sources (docs/LEDGER.md, Scale): one row per day, rollup
// dimensions and tag set, whatever the sources, where charge_daily keeps one per source too. A
// ledger fed many files that each span its whole history has a charge_daily of days x files x
// groups; reports read this one instead. {MERGED_COLUMNS} and {MERGED_KEY} are filled from
// ledger::kRollupDims; {WITHOUT_ROWID} makes SQLite keep it in key order (an upsert finds its
// row in one b-tree, a range of days is a range of it). An ingest adds its source's rows to it
// in the same transaction; dropping or restating a source sums its days again from charge_daily
// (ledger_merge.cc). Filled here from what charge_daily holds.
inline constexpr const char* kSchemaV9Merged = R"SQL(
CREATE TABLE charge_daily_merged (
  {MERGED_COLUMNS},
  PRIMARY KEY ({MERGED_KEY})
){WITHOUT_ROWID};
{MERGED_REBUILD};
)SQL";

// Each source's totals per currency (docs/LEDGER.md, Scale): what `aicost ledger sources` shows,
// written in the load's transaction, so that listing the sources reads a row per source and
// currency, not the source's rollup (6.15M rows of charge_daily in the 10M benchmark ledger of
// 100 parts). A restatement sums a source's totals again from what stays in charge_daily
// (ledger_merge.cc). The sums are nano-units in exact decimal text: a file's total may pass what
// an int64 holds where each day's groups do not. Filled here from what charge_daily holds.
inline constexpr const char* kSchemaV10SourceTotals = R"SQL(
CREATE TABLE source_totals (
  source_id BIGINT NOT NULL REFERENCES sources (id),
  currency_sid BIGINT NOT NULL,
  billed TEXT NOT NULL,
  effective TEXT NOT NULL,
  PRIMARY KEY (source_id, currency_sid)
);
INSERT INTO source_totals (source_id, currency_sid, billed, effective) SELECT source_id,
  currency_sid, CAST(SUM(billed) AS TEXT), CAST(SUM(effective) AS TEXT) FROM charge_daily
  GROUP BY source_id, currency_sid;
)SQL";

// The resource-day rollup (ledger::kResourceRollupDims, docs/LEDGER.md, Scale): a source whose
// charges fold well (a cloud export billing each resource hourly) also has them summed per day,
// resource dimensions, currency and tag set here, written in its load's transaction, and
// sources.resource_rollup says it does; a query by resource reads these rows for such sources
// and the charges for the rest. {RESOURCE_COLUMNS} is filled from kResourceRollupDims. Sources
// loaded before are marked raw-only (their charges answer as before).
inline constexpr const char* kSchemaV11ResourceDaily = R"SQL(
CREATE TABLE charge_resource_daily (
  source_id BIGINT NOT NULL REFERENCES sources (id),
  day INTEGER NOT NULL,
  {RESOURCE_COLUMNS},
  currency_sid BIGINT NOT NULL,
  tagset_id BIGINT NOT NULL,
  billed BIGINT NOT NULL,
  effective BIGINT NOT NULL,
  list BIGINT NOT NULL,
  contracted BIGINT NOT NULL,
  gpu_hours DOUBLE PRECISION NOT NULL,
  rows BIGINT NOT NULL,
  consumed_quantity DOUBLE PRECISION NOT NULL
);
CREATE INDEX charge_resource_daily_source ON charge_resource_daily (source_id);
ALTER TABLE sources ADD COLUMN resource_rollup INTEGER NOT NULL DEFAULT 0;
)SQL";

}  // namespace aicost::store::sql
