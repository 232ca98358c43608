#include "schema.h"

#include "schema_sql.h"

namespace aicost::store {
namespace {

std::string substitute(std::string sql, const std::string& from, const std::string& to) {
  for (auto pos = sql.find(from); pos != std::string::npos; pos = sql.find(from, pos + to.size()))
    sql.replace(pos, from.size(), to);
  return sql;
}

// "provider" for "provider_sid".
std::string text_name(const char* sid_column) {
  std::string name = sid_column;
  return name.substr(0, name.size() - 4);
}

// charges with every string id resolved, columns in the table's order under their text names.
std::string charges_text_view() {
  std::string select =
      "source_id, line, day, period_start, period_end, billing_period_start, billed, effective, "
      "list, contracted, pricing_quantity, consumed_quantity, gpu_hours, tagset_id, resource_id";
  std::string from = " FROM charges c";
  for (std::size_t i = 0; i < kChargeText.size(); ++i) {
    const std::string t = "t" + std::to_string(i);
    select += ", " + t + ".value AS " + text_name(kChargeText[i].column);
    from += " JOIN strings " + t + " ON " + t + ".id = c." + kChargeText[i].column;
  }
  return "CREATE VIEW charges_text AS SELECT " + select + from;
}

// charge_daily from the charges: the groups and sums IdRollup makes on a load (day of
// period_start, rollup dimensions, tag set; contracted and ConsumedQuantity NULL counted 0).
std::string daily_rebuild() {
  std::string keys = "source_id, day";
  for (auto dim : ledger::kRollupDims) keys += std::string(", ") + dimension_column(dim);
  keys += ", tagset_id";
  return "INSERT INTO charge_daily (" + daily_columns() + ") SELECT " + keys +
         ", SUM(billed), SUM(effective), SUM(list), SUM(COALESCE(contracted, 0)), SUM(gpu_hours), "
         "COUNT(*), "
         "SUM(COALESCE(consumed_quantity, 0)) FROM charges GROUP BY " +
         keys;
}

// charge_daily_merged's columns with their types, for its CREATE TABLE.
std::string merged_definitions() {
  std::string out = "day INTEGER NOT NULL";
  for (auto dim : ledger::kRollupDims)
    out += std::string(",\n  ") + dimension_column(dim) + " BIGINT NOT NULL";
  return out +
         ",\n  tagset_id BIGINT NOT NULL,\n  billed BIGINT NOT NULL,\n  effective BIGINT NOT "
         "NULL,\n  list BIGINT NOT NULL,\n  contracted BIGINT NOT NULL,\n  gpu_hours DOUBLE "
         "PRECISION NOT NULL,\n  rows BIGINT NOT NULL,\n  consumed_quantity DOUBLE PRECISION NOT "
         "NULL";
}

// charge_resource_daily's dimension columns: resource_id as text, the others string ids.
std::string resource_definitions() {
  std::string out;
  for (auto dim : ledger::kResourceRollupDims)
    out += std::string(out.empty() ? "" : ",\n  ") + dimension_column(dim) +
           (dimension_encoded(dim) ? " BIGINT NOT NULL" : " TEXT NOT NULL");
  return out;
}

std::string schema_v9(Dialect d) {
  std::string sql = substitute(sql::kSchemaV9Merged, "{MERGED_COLUMNS}", merged_definitions());
  sql = substitute(sql, "{MERGED_KEY}", merged_key());
  sql = substitute(sql, "{WITHOUT_ROWID}", d == Dialect::kSqlite ? " WITHOUT ROWID" : "");
  return substitute(sql, "{MERGED_REBUILD}", merged_from_daily(""));
}

}  // namespace

using ledger::Charge;
const std::array<TextColumn, kChargeTextCount> kChargeText = {{
    {"currency_sid", &Charge::currency},
    {"provider_sid", &Charge::provider},
    {"billing_account_id_sid", &Charge::billing_account_id},
    {"billing_account_name_sid", &Charge::billing_account_name},
    {"sub_account_id_sid", &Charge::sub_account_id},
    {"sub_account_name_sid", &Charge::sub_account_name},
    {"service_name_sid", &Charge::service_name},
    {"service_category_sid", &Charge::service_category},
    {"region_id_sid", &Charge::region_id},
    {"resource_name_sid", &Charge::resource_name},
    {"resource_type_sid", &Charge::resource_type},
    {"sku_id_sid", &Charge::sku_id},
    {"charge_category_sid", &Charge::charge_category},
    {"charge_class_sid", &Charge::charge_class},
    {"charge_frequency_sid", &Charge::charge_frequency},
    {"pricing_category_sid", &Charge::pricing_category},
    {"commitment_discount_id_sid", &Charge::commitment_discount_id},
    {"commitment_discount_status_sid", &Charge::commitment_discount_status},
    {"pricing_unit_sid", &Charge::pricing_unit},
    {"consumed_unit_sid", &Charge::consumed_unit},
    {"charge_description_sid", &Charge::charge_description},
}};

std::vector<Migration> migrations(Dialect d) {
  const std::string id = d == Dialect::kSqlite ? "INTEGER PRIMARY KEY" : "BIGSERIAL PRIMARY KEY";
  std::string v3 = sql::kSchemaV3Claims;
  if (d == Dialect::kPostgres) v3 += sql::kSchemaV3PgDigests;
  return {
      {1,
       substitute(substitute(sql::kSchemaV1, "{ID}", id), "{CHARGES_TEXT}", charges_text_view())},
      {2, sql::kSchemaV2},
      {3, v3},
      {4, sql::kSchemaV4Commitments},
      // A key can be long (an ARN and many accounts): a hash index on PostgreSQL, as for paths.
      {5, std::string(sql::kSchemaV5Deliveries) +
              (d == Dialect::kSqlite
                   ? "CREATE INDEX sources_export ON sources (export_key);"
                   : "CREATE INDEX sources_export ON sources USING hash (export_key);")},
      {6, d == Dialect::kSqlite
              ? "SELECT 1"
              : substitute(sql::kSchemaV6PgPartitions, "{CHARGES_TEXT}", charges_text_view())},
      {7, substitute(sql::kSchemaV7Changes, "{ID}", id)},
      {8, substitute(sql::kSchemaV8RollupUnit, "{DAILY_REBUILD}", daily_rebuild())},
      {9, schema_v9(d)},
      {10, sql::kSchemaV10SourceTotals},
      {11, substitute(sql::kSchemaV11ResourceDaily, "{RESOURCE_COLUMNS}", resource_definitions())}};
}

const char* dimension_column(ledger::Dimension d) {
  using ledger::Dimension;
  switch (d) {
    case Dimension::kProvider: return "provider_sid";
    case Dimension::kBillingAccount: return "billing_account_id_sid";
    case Dimension::kSubAccount: return "sub_account_id_sid";
    case Dimension::kService: return "service_name_sid";
    case Dimension::kServiceCategory: return "service_category_sid";
    case Dimension::kRegion: return "region_id_sid";
    case Dimension::kResource: return "resource_id";
    case Dimension::kResourceName: return "resource_name_sid";
    case Dimension::kResourceType: return "resource_type_sid";
    case Dimension::kSku: return "sku_id_sid";
    case Dimension::kChargeCategory: return "charge_category_sid";
    case Dimension::kChargeFrequency: return "charge_frequency_sid";
    case Dimension::kPricingCategory: return "pricing_category_sid";
    case Dimension::kCommitmentStatus: return "commitment_discount_status_sid";
    case Dimension::kCommitment: return "commitment_discount_id_sid";
    case Dimension::kConsumedUnit: return "consumed_unit_sid";
    case Dimension::kCurrency: return "currency_sid";
    case Dimension::kTag: return nullptr;
  }
  return nullptr;
}

bool dimension_encoded(ledger::Dimension d) { return d != ledger::Dimension::kResource; }

std::size_t text_slot(ledger::Dimension d) {
  const char* column = dimension_column(d);
  for (std::size_t i = 0; column && i < kChargeText.size(); ++i)
    if (std::string_view(kChargeText[i].column) == column) return i;
  return kChargeText.size();
}

std::string charge_columns() {
  std::string out =
      "source_id, line, day, period_start, period_end, billing_period_start, billed, effective, "
      "list, "
      "contracted, pricing_quantity, consumed_quantity, gpu_hours, tagset_id, resource_id";
  for (const auto& t : kChargeText) out += std::string(", ") + t.column;
  return out;
}

std::string daily_columns() {
  std::string out = "source_id, day";
  for (auto dim : ledger::kRollupDims) out += std::string(", ") + dimension_column(dim);
  return out +
         ", tagset_id, billed, effective, list, contracted, gpu_hours, rows, consumed_quantity";
}

std::string merged_key() {
  std::string out = "day";
  for (auto dim : ledger::kRollupDims) out += std::string(", ") + dimension_column(dim);
  return out + ", tagset_id";
}

std::string merged_columns() {
  return merged_key() + ", billed, effective, list, contracted, gpu_hours, rows, consumed_quantity";
}

std::string merged_from_daily(const std::string& where) {
  const std::string key = merged_key();
  return "INSERT INTO charge_daily_merged (" + merged_columns() + ") SELECT " + key +
         ", SUM(billed), SUM(effective), SUM(list), SUM(contracted), SUM(gpu_hours), SUM(rows), "
         "SUM(consumed_quantity) FROM charge_daily" +
         where + " GROUP BY " + key;
}

}  // namespace aicost::store
