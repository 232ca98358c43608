// Oracle Cloud (OCI) cost report CSV, mapped to FOCUS by the focus_converters recipe
// (../shared/data/billing-samples/focus-converters/conversion_rules_oci.csv; finops.md §1.6, §10).
#include "dialect.h"

namespace aicost::billing {
namespace {

constexpr TextColumn kText[] = {
    {{"cost/subscriptionId"}, &ledger::Charge::billing_account_id},
    {{"lineItem/tenantId"}, &ledger::Charge::sub_account_id},
    {{"product/service"}, &ledger::Charge::service_name},
    {{"product/region"}, &ledger::Charge::region_id},
    {{"product/resourceId"}, &ledger::Charge::resource_id},
    {{"cost/productSku"}, &ledger::Charge::sku_id},
    {{"product/Description"}, &ledger::Charge::charge_description},
    {{"cost/skuUnitDescription"}, &ledger::Charge::pricing_unit},
};

class OciDialect final : public CsvDialect {
 public:
  core::Status header(const std::vector<std::string_view>& names, IssueLog& log) override {
    Columns cols(names);
    cost_ = cols.find({"cost/myCost"});
    start_ = cols.find({"lineItem/intervalUsageStart"});
    if (cost_ < 0 || start_ < 0)
      return core::make_error(
          core::ErrorCode::kInvalidInput,
          std::string("not an OCI cost report: no ") +
              (cost_ < 0
                   ? (start_ < 0 ? "cost/myCost and no lineItem/intervalUsageStart" : "cost/myCost")
                   : "lineItem/intervalUsageStart") +
              " column");
    end_ = cols.find({"lineItem/intervalUsageEnd"});
    currency_ = cols.find({"cost/currencyCode"});
    text_ = TextColumns(cols, kText);
    quantity_ = cols.find({"usage/billedQuantity"});
    correction_ = cols.find({"lineItem/isCorrection"});
    tags_ = tag_columns(cols, "tags/");
    if (currency_ < 0)
      log.note("cost/currencyCode", "no cost/currencyCode column; amounts are stored under XXX");
    return cols.check_duplicates(log);
  }

  bool row(const CsvRecord& r, ledger::Charge& c, IssueLog& log, std::int64_t& rounded) override {
    c.line = r.line;
    const auto start = required_time(r, start_, "lineItem/intervalUsageStart", log);
    if (!start) return false;
    c.period_start = *start;
    c.period_end = parse_datetime(cell(r, end_)).value_or(*start);
    c.billing_period_start = month_start(*start);

    const auto cost = required_cost(r, cost_, "cost/myCost", log, rounded);
    if (!cost) return false;
    // cost/myCost is the customer's cost after their rates; the report has no public price, so
    // ListCost is that cost too.
    c.billed = c.effective = c.list = *cost;
    c.currency = currency_cell(r, currency_, "cost/currencyCode", log);
    c.provider = "Oracle";
    text_.read(r, c);
    const bool correction = cell(r, correction_) == "true";
    c.charge_category = correction ? "Adjustment" : "Usage";
    if (!correction) c.charge_frequency = "Usage-Based";
    c.pricing_quantity = quantity_cell(r, quantity_, "usage/billedQuantity", log);
    c.consumed_unit = c.pricing_unit;
    c.consumed_quantity = c.pricing_quantity;
    add_tag_cells(r, tags_, c.tags);
    return true;
  }

  std::string version() const override { return "oci"; }
  std::string_view tags_column() const override { return "tags/"; }

 private:
  int cost_ = -1, start_ = -1, end_ = -1, currency_ = -1, quantity_ = -1, correction_ = -1;
  TextColumns text_;
  std::vector<std::pair<int, std::string>> tags_;
};

}  // namespace

std::unique_ptr<CsvDialect> make_oci_dialect() { return std::make_unique<OciDialect>(); }

}  // namespace aicost::billing
