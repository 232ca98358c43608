#include "schema.h"

namespace aicost::store {
namespace {

// {ID} is the auto-numbered primary key; every other type name means the same in both dialects.
constexpr const char* kSchemaV1 = R"SQL(
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
CREATE TABLE charges (
  source_id BIGINT NOT NULL REFERENCES sources (id),
  line BIGINT NOT NULL,
  day INTEGER NOT NULL,
  period_start BIGINT NOT NULL,
  period_end BIGINT NOT NULL,
  billing_period_start BIGINT NOT NULL,
  currency TEXT NOT NULL,
  billed BIGINT NOT NULL,
  effective BIGINT NOT NULL,
  list BIGINT NOT NULL,
  contracted BIGINT,
  provider TEXT NOT NULL,
  billing_account_id TEXT NOT NULL,
  billing_account_name TEXT NOT NULL,
  sub_account_id TEXT NOT NULL,
  sub_account_name TEXT NOT NULL,
  service_name TEXT NOT NULL,
  service_category TEXT NOT NULL,
  region_id TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  resource_name TEXT NOT NULL,
  resource_type TEXT NOT NULL,
  sku_id TEXT NOT NULL,
  charge_category TEXT NOT NULL,
  charge_class TEXT NOT NULL,
  charge_frequency TEXT NOT NULL,
  pricing_category TEXT NOT NULL,
  commitment_discount_id TEXT NOT NULL,
  commitment_discount_status TEXT NOT NULL,
  pricing_unit TEXT NOT NULL,
  consumed_unit TEXT NOT NULL,
  charge_description TEXT NOT NULL,
  pricing_quantity DOUBLE PRECISION,
  consumed_quantity DOUBLE PRECISION,
  gpu_hours DOUBLE PRECISION NOT NULL,
  tagset_id BIGINT NOT NULL
);
CREATE INDEX charges_source ON charges (source_id);
CREATE TABLE charge_daily (
  source_id BIGINT NOT NULL REFERENCES sources (id),
  day INTEGER NOT NULL,
  provider TEXT NOT NULL,
  billing_account_id TEXT NOT NULL,
  sub_account_id TEXT NOT NULL,
  service_name TEXT NOT NULL,
  service_category TEXT NOT NULL,
  region_id TEXT NOT NULL,
  resource_type TEXT NOT NULL,
  charge_category TEXT NOT NULL,
  charge_frequency TEXT NOT NULL,
  pricing_category TEXT NOT NULL,
  commitment_discount_status TEXT NOT NULL,
  currency TEXT NOT NULL,
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

std::string substitute(std::string sql, const std::string& from, const std::string& to) {
  for (auto pos = sql.find(from); pos != std::string::npos; pos = sql.find(from, pos + to.size()))
    sql.replace(pos, from.size(), to);
  return sql;
}

}  // namespace

std::vector<Migration> migrations(Dialect d) {
  const std::string id = d == Dialect::kSqlite ? "INTEGER PRIMARY KEY" : "BIGSERIAL PRIMARY KEY";
  return {{1, substitute(kSchemaV1, "{ID}", id)}};
}

const char* dimension_column(ledger::Dimension d) {
  using ledger::Dimension;
  switch (d) {
    case Dimension::kProvider: return "provider";
    case Dimension::kBillingAccount: return "billing_account_id";
    case Dimension::kSubAccount: return "sub_account_id";
    case Dimension::kService: return "service_name";
    case Dimension::kServiceCategory: return "service_category";
    case Dimension::kRegion: return "region_id";
    case Dimension::kResource: return "resource_id";
    case Dimension::kResourceName: return "resource_name";
    case Dimension::kResourceType: return "resource_type";
    case Dimension::kSku: return "sku_id";
    case Dimension::kChargeCategory: return "charge_category";
    case Dimension::kChargeFrequency: return "charge_frequency";
    case Dimension::kPricingCategory: return "pricing_category";
    case Dimension::kCommitmentStatus: return "commitment_discount_status";
    case Dimension::kCurrency: return "currency";
    case Dimension::kTag: return nullptr;
  }
  return nullptr;
}

AggregateSql aggregate_sql(const ledger::AggregateQuery& q, Dialect d) {
  bool rollup = true;
  for (auto dim : q.dims) rollup &= ledger::in_rollup(dim);
  rollup &= !q.gpu_rows_only;
  for (const auto& f : q.filters) rollup &= ledger::in_rollup(f.key.dim);
  AggregateSql out;
  auto param = [&](std::string value) {
    out.params.push_back(std::move(value));
    return d == Dialect::kSqlite ? std::string("?") : "$" + std::to_string(out.params.size());
  };
  std::string group;
  auto add_group = [&](const std::string& col) { group += (group.empty() ? "" : ", ") + col; };
  if (q.by_day) add_group("day");
  for (auto dim : q.dims) add_group(dimension_column(dim));
  add_group("currency");
  if (q.by_tagset) add_group("tagset_id");
  const std::string rows = rollup ? "SUM(rows)" : "COUNT(*)";
  const std::string contracted = rollup ? "SUM(contracted)" : "SUM(COALESCE(contracted, 0))";
  out.sql = "SELECT " + group + ", SUM(billed), SUM(effective), SUM(list), " + contracted +
            ", SUM(gpu_hours), " + rows + " FROM " + (rollup ? "charge_daily" : "charges");
  std::string where;
  auto add_where = [&](const std::string& cond) { where += (where.empty() ? " WHERE " : " AND ") + cond; };
  if (q.from) add_where("day >= " + param(std::to_string(*q.from)));
  if (q.to) add_where("day < " + param(std::to_string(*q.to)));
  if (q.gpu_rows_only) add_where("gpu_hours > 0");
  for (const auto& f : q.filters) add_where(std::string(dimension_column(f.key.dim)) + " = " + param(f.value));
  out.sql += where + " GROUP BY " + group + " ORDER BY " + group;
  return out;
}

AggregateSql gpu_activity_sql(std::optional<ledger::Day> from, std::optional<ledger::Day> to, Dialect d) {
  AggregateSql out;
  auto param = [&](std::string value) {
    out.params.push_back(std::move(value));
    return d == Dialect::kSqlite ? std::string("?") : "$" + std::to_string(out.params.size());
  };
  const std::string day = d == Dialect::kSqlite ? "(time / 86400)" : "div(time, 86400)";
  out.sql = "SELECT host, " + day + " AS d, metric, AVG(value), COUNT(*) FROM gpu_samples WHERE metric IN (" +
            param(ledger::gpu_metric_name(ledger::GpuMetric::kSmActive)) + ", " +
            param(ledger::gpu_metric_name(ledger::GpuMetric::kGrEngineActive)) + ", " +
            param(ledger::gpu_metric_name(ledger::GpuMetric::kGpuUtil)) + ")";
  if (from) out.sql += " AND time >= " + param(std::to_string(static_cast<std::int64_t>(*from) * 86400));
  if (to) out.sql += " AND time < " + param(std::to_string(static_cast<std::int64_t>(*to) * 86400));
  out.sql += " GROUP BY host, d, metric ORDER BY host, d, metric";
  return out;
}

}  // namespace aicost::store
