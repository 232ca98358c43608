// AWS Cost and Usage Report, legacy slash-named columns (lineItem/..., product/..., ...), mapped to
// FOCUS by the focus_converters recipe (../shared/data/billing-samples/focus-converters/
// conversion_rules_aws-cur.csv; ../shared/reference/finops.md §1.6, §10). CUR 2.0 (AWS Data
// Exports) names the same columns in snake case and holds the tags in one map, resource_tags.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

#include "dialect.h"

namespace aicost::billing {
namespace {

bool is_usage(std::string_view type) {
  return type == "Usage" || type == "DiscountedUsage" || type == "SavingsPlanCoveredUsage";
}

// lineItem/LineItemType → ChargeCategory. Credits and refunds are FOCUS Credit rows (the recipe
// predates that category and writes Adjustment); negations and discounts fall under Adjustment.
const char* charge_category(std::string_view type) {
  if (is_usage(type)) return "Usage";
  if (type == "Tax") return "Tax";
  if (type == "Credit" || type == "Refund") return "Credit";
  if (type == "Fee" || type == "RIFee" || type == "SavingsPlanRecurringFee" ||
      type == "SavingsPlanUpfrontFee")
    return "Purchase";
  return "Adjustment";
}

// From the line type rather than bill/BillType as the recipe does: "Anniversary" (the ordinary
// monthly bill) says nothing about how often a charge recurs.
const char* charge_frequency(std::string_view type, std::string_view bill_type) {
  if (bill_type == "Refund" || bill_type == "Purchase") return "One-Time";
  if (is_usage(type) || type == "SavingsPlanNegation") return "Usage-Based";
  if (type == "RIFee" || type == "SavingsPlanRecurringFee") return "Recurring";
  if (type == "Fee" || type == "SavingsPlanUpfrontFee") return "One-Time";
  return "";
}

// The legacy columns read below.
constexpr std::array kLegacyColumns = {"lineItem/NetUnblendedCost",
                                       "lineItem/UnblendedCost",
                                       "lineItem/UsageStartDate",
                                       "identity/TimeInterval",
                                       "lineItem/UsageEndDate",
                                       "bill/BillingPeriodStartDate",
                                       "lineItem/CurrencyCode",
                                       "lineItem/LineItemType",
                                       "bill/BillType",
                                       "reservation/EffectiveCost",
                                       "savingsPlan/SavingsPlanEffectiveCost",
                                       "savingsPlan/TotalCommitmentToDate",
                                       "savingsPlan/UsedCommitment",
                                       "reservation/UnusedAmortizedUpfrontFeeForBillingPeriod",
                                       "reservation/UnusedRecurringFee",
                                       "pricing/publicOnDemandCost",
                                       "bill/PayerAccountId",
                                       "lineItem/UsageAccountId",
                                       "lineItem/UsageAccountName",
                                       "lineItem/ProductCode",
                                       "product/region",
                                       "product/regionCode",
                                       "lineItem/ResourceId",
                                       "product/sku",
                                       "lineItem/LineItemDescription",
                                       "pricing/unit",
                                       "lineItem/UsageAmount",
                                       "lineItem/UsageType",
                                       "pricing/term",
                                       "product/PurchaseOption",
                                       "pricing/PurchaseOption",
                                       "savingsPlan/SavingsPlanARN",
                                       "reservation/ReservationARN",
                                       "product/gpu"};

// A legacy column's CUR 2.0 name: snake case, every capital starting a word, as AWS Data Exports
// writes them (lineItem/UsageAmount is line_item_usage_amount, savingsPlan/SavingsPlanARN is
// savings_plan_savings_plan_a_r_n;
// docs.aws.amazon.com/cur/latest/userguide/table-dictionary-cur2.html).
std::string cur2_name(std::string_view legacy) {
  std::string out;
  for (char c : legacy) {
    if (c == '/') {
      out += '_';
    } else if (std::isupper(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != '_') out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

// CUR 2.0's names as the legacy ones, so one mapping reads both (issues name the legacy column).
std::vector<std::string_view> legacy_names(const std::vector<std::string_view>& names) {
  std::vector<std::string_view> out = names;
  for (auto& n : out)
    for (const char* legacy : kLegacyColumns)
      if (n == cur2_name(legacy)) n = legacy;
  return out;
}

constexpr TextColumn kText[] = {
    {{"bill/PayerAccountId"}, &ledger::Charge::billing_account_id},
    {{"lineItem/UsageAccountId"}, &ledger::Charge::sub_account_id},
    {{"lineItem/UsageAccountName"}, &ledger::Charge::sub_account_name},
    {{"lineItem/ProductCode"}, &ledger::Charge::service_name},
    {{"product/region", "product/regionCode"}, &ledger::Charge::region_id},
    {{"lineItem/ResourceId"}, &ledger::Charge::resource_id},
    {{"product/sku"}, &ledger::Charge::sku_id},
    {{"lineItem/LineItemDescription"}, &ledger::Charge::charge_description},
    {{"pricing/unit"}, &ledger::Charge::pricing_unit},
};

class AwsCurDialect final : public CsvDialect {
 public:
  core::Status header(const std::vector<std::string_view>& file_names, IssueLog& log) override {
    const bool cur2 = std::any_of(file_names.begin(), file_names.end(), [](std::string_view n) {
      return n == "line_item_unblended_cost" || n == "line_item_line_item_type";
    });
    const auto names = cur2 ? legacy_names(file_names) : file_names;
    Columns cols(names);
    net_ = cols.find({"lineItem/NetUnblendedCost"});
    unblended_ = cols.find({"lineItem/UnblendedCost"});
    start_ = cols.find({"lineItem/UsageStartDate"});
    interval_ = cols.find({"identity/TimeInterval"});
    std::string missing;
    if (net_ < 0 && unblended_ < 0) missing = "lineItem/UnblendedCost";
    if (start_ < 0 && interval_ < 0)
      missing += std::string(missing.empty() ? "" : " and ") +
                 "lineItem/UsageStartDate (or identity/TimeInterval)";
    if (!missing.empty())
      return core::make_error(core::ErrorCode::kInvalidInput,
                              "not an AWS CUR file: no " + missing + " column");
    end_ = cols.find({"lineItem/UsageEndDate"});
    billing_start_ = cols.find({"bill/BillingPeriodStartDate"});
    currency_ = cols.find({"lineItem/CurrencyCode"});
    type_ = cols.find({"lineItem/LineItemType"});
    bill_type_ = cols.find({"bill/BillType"});
    reservation_effective_ = cols.find({"reservation/EffectiveCost"});
    sp_effective_ = cols.find({"savingsPlan/SavingsPlanEffectiveCost"});
    sp_total_ = cols.find({"savingsPlan/TotalCommitmentToDate"});
    sp_used_ = cols.find({"savingsPlan/UsedCommitment"});
    ri_unused_upfront_ = cols.find({"reservation/UnusedAmortizedUpfrontFeeForBillingPeriod"});
    ri_unused_recurring_ = cols.find({"reservation/UnusedRecurringFee"});
    public_cost_ = cols.find({"pricing/publicOnDemandCost"});
    text_ = TextColumns(cols, kText);
    amount_ = cols.find({"lineItem/UsageAmount"});
    usage_type_ = cols.find({"lineItem/UsageType"});
    term_ = cols.find({"pricing/term"});
    purchase_option_ = cols.find({"product/PurchaseOption", "pricing/PurchaseOption"});
    sp_arn_ = cols.find({"savingsPlan/SavingsPlanARN"});
    ri_arn_ = cols.find({"reservation/ReservationARN"});
    gpu_ = cols.find({"product/gpu"});
    // CUR 2.0 keeps the product attributes outside its fixed columns in one map, `product`
    // (docs.aws.amazon.com/cur/latest/userguide/table-dictionary-cur2-product.html): the GPU count
    // is its key "gpu" unless the export flattened it to product_gpu.
    product_ = cur2 && gpu_ < 0 ? cols.find({"product"}) : -1;
    tags_ = tag_columns(cols, "resourceTags/");
    resource_tags_ = cur2 ? cols.find({"resource_tags"}) : -1;
    for (auto& [i, key] : tags_)
      if (key.rfind("user:", 0) == 0)
        key.erase(0, 5);  // user-defined; aws:createdBy keeps its prefix
    if (currency_ < 0)
      log.note("lineItem/CurrencyCode",
               "no lineItem/CurrencyCode column; amounts are stored under XXX");
    return cols.check_duplicates(log);
  }

  bool row(const CsvRecord& r, ledger::Charge& c, IssueLog& log, std::int64_t& rounded) override {
    c.line = r.line;
    if (!period(r, c, log)) return false;
    c.billing_period_start = month_start(c.period_start);
    if (auto b = parse_datetime(cell(r, billing_start_))) c.billing_period_start = *b;

    // BilledCost: NetUnblendedCost (after discounts) when the report has it, else UnblendedCost.
    const bool net = net_ >= 0 && !is_null(cell(r, net_));
    const auto billed = net ? required_cost(r, net_, "lineItem/NetUnblendedCost", log, rounded)
                            : required_cost(r, unblended_, "lineItem/UnblendedCost", log, rounded);
    if (!billed) return false;
    c.billed = *billed;
    const auto type = cell(r, type_);
    c.effective = effective(r, type, c.billed, log, rounded);
    c.list = cost_or(r, public_cost_, "pricing/publicOnDemandCost", c.billed, "BilledCost", log,
                     rounded);

    c.currency = currency_cell(r, currency_, "lineItem/CurrencyCode", log);
    c.provider = "AWS";
    text_.read(r, c);
    c.charge_category = type_ < 0 ? "Usage" : charge_category(type);
    c.charge_frequency = charge_frequency(type, cell(r, bill_type_));
    c.pricing_quantity = quantity_cell(r, amount_, "lineItem/UsageAmount", log);
    if (c.charge_category == "Usage") {
      c.consumed_unit = c.pricing_unit;
      c.consumed_quantity = c.pricing_quantity;
      c.pricing_category = pricing_category(r, type);
    }
    c.commitment_discount_id = text_cell(r, sp_arn_);
    if (c.commitment_discount_id.empty()) c.commitment_discount_id = text_cell(r, ri_arn_);
    if (type == "DiscountedUsage" || type == "SavingsPlanCoveredUsage")
      c.commitment_discount_status = "Used";
    add_tag_cells(r, tags_, c.tags);
    if (resource_tags_ >= 0) {
      // A map of user-defined tags ("user_team") and AWS ones ("aws_created_by"); a user tag is
      // its own key, as resourceTags/user:team is.
      tag_reader_.read(r, resource_tags_, "resource_tags", c.tags, log);
      for (auto& t : c.tags)
        if (t.key.rfind("user_", 0) == 0) t.key.erase(0, 5);
    }
    c.gpu_hours = gpu_hours(r, c);
    return true;
  }

  std::string version() const override { return "aws-cur"; }
  std::string_view tags_column() const override {
    return resource_tags_ >= 0 ? "resource_tags" : "resourceTags/";
  }

 private:
  bool period(const CsvRecord& r, ledger::Charge& c, IssueLog& log) {
    // identity/TimeInterval is "start/end"; the usage dates are finer where both are present.
    const auto interval = cell(r, interval_);
    const auto slash = interval.find('/');
    bool out_of_range = false;
    auto start = parse_datetime(cell(r, start_), nullptr, &out_of_range);
    if (!start && !out_of_range && slash != std::string_view::npos)
      start = parse_datetime(interval.substr(0, slash), nullptr, &out_of_range);
    if (!start) {
      const auto t = start_ >= 0 ? cell(r, start_) : interval;
      std::string message = "no usage start; the row has no time";
      if (!is_null(t)) message = not_a_datetime(t, out_of_range);
      log.error(r.line, start_ >= 0 ? "lineItem/UsageStartDate" : "identity/TimeInterval",
                std::move(message));
      return false;
    }
    c.period_start = *start;
    auto end = parse_datetime(cell(r, end_));
    if (!end && slash != std::string_view::npos) end = parse_datetime(interval.substr(slash + 1));
    c.period_end = end.value_or(*start);
    return true;
  }

  // EffectiveCost by line type, as the recipe computes it: commitment-covered usage at its
  // amortised cost, the unused part of commitment fees on the fee rows, and 0 where the cost is
  // already spread.
  std::int64_t effective(const CsvRecord& r, std::string_view type, std::int64_t billed,
                         IssueLog& log, std::int64_t& rounded) {
    auto amount = [&](int i, const char* name) -> std::optional<std::int64_t> {
      auto v = amount_cell(r, i, name, log, rounded);
      if (!v.value)
        log.warn_repeated(r.line, name, "missing",
                          std::string(name) + " is absent, null or unreadable on a " +
                              std::string(type) + " row; EffectiveCost taken as BilledCost");
      return v.value;
    };
    if (type == "SavingsPlanCoveredUsage")
      return amount(sp_effective_, "savingsPlan/SavingsPlanEffectiveCost").value_or(billed);
    if (type == "DiscountedUsage")
      return amount(reservation_effective_, "reservation/EffectiveCost").value_or(billed);
    if (type == "SavingsPlanNegation" || type == "SavingsPlanUpfrontFee") return 0;
    if (type == "Fee" && !is_null(cell(r, ri_arn_))) return 0;
    if (type == "SavingsPlanRecurringFee") {
      const auto total = amount(sp_total_, "savingsPlan/TotalCommitmentToDate");
      const auto used = total ? amount(sp_used_, "savingsPlan/UsedCommitment") : std::nullopt;
      std::int64_t unused = 0;
      return total && used && !__builtin_sub_overflow(*total, *used, &unused) ? unused : billed;
    }
    if (type == "RIFee") {
      const auto upfront =
          amount(ri_unused_upfront_, "reservation/UnusedAmortizedUpfrontFeeForBillingPeriod");
      const auto recurring =
          upfront ? amount(ri_unused_recurring_, "reservation/UnusedRecurringFee") : std::nullopt;
      std::int64_t unused = 0;
      return upfront && recurring && !__builtin_add_overflow(*upfront, *recurring, &unused)
                 ? unused
                 : billed;
    }
    return billed;
  }

  std::string pricing_category(const CsvRecord& r, std::string_view type) const {
    if (type == "DiscountedUsage" || type == "SavingsPlanCoveredUsage") return "Committed";
    if (cell(r, usage_type_).find("SpotUsage") != std::string_view::npos) return "Dynamic";
    const auto option = cell(r, purchase_option_);
    if (option == "Spot Instances") return "Dynamic";
    if (option == "Reserved Instances") return "Committed";
    if (option == "On-Demand" || option == "Dedicated Hosts" || cell(r, term_) == "OnDemand")
      return "Standard";
    return "";
  }

  // product/gpu (CUR 2.0: product["gpu"]) × UsageAmount on instance-hour rows (BoxUsage, SpotUsage,
  // DedicatedUsage, in Hrs).
  double gpu_hours(const CsvRecord& r, const ledger::Charge& c) const {
    if (c.charge_category != "Usage" || !c.consumed_quantity || c.pricing_unit != "Hrs") return 0;
    const auto usage = cell(r, usage_type_);
    if (usage.find("BoxUsage") == std::string_view::npos &&
        usage.find("SpotUsage") == std::string_view::npos &&
        usage.find("DedicatedUsage") == std::string_view::npos)
      return 0;
    const std::string gpus = gpu_ >= 0 ? text_cell(r, gpu_) : product_gpu(r);
    char* end = nullptr;
    const double n = std::strtod(gpus.c_str(), &end);
    if (gpus.empty() || *end != '\0' || n <= 0) return 0;
    return n * *c.consumed_quantity;
  }

  // The "gpu" key of CUR 2.0's product map (JSON text in a CSV, a MAP in Parquet, read as JSON
  // text); "" when there is none.
  std::string product_gpu(const CsvRecord& r) const {
    const auto text = cell(r, product_);
    if (is_null(text)) return {};
    const auto parsed = parse_tag_object(text);
    if (!parsed) return {};
    for (const auto& t : parsed->tags)
      if (t.key == "gpu") return t.value;
    return {};
  }

  int net_ = -1, unblended_ = -1, start_ = -1, interval_ = -1, end_ = -1, billing_start_ = -1,
      currency_ = -1, type_ = -1, bill_type_ = -1, reservation_effective_ = -1, sp_effective_ = -1,
      sp_total_ = -1, sp_used_ = -1, ri_unused_upfront_ = -1, ri_unused_recurring_ = -1,
      public_cost_ = -1, amount_ = -1, usage_type_ = -1, term_ = -1, purchase_option_ = -1,
      sp_arn_ = -1, ri_arn_ = -1, gpu_ = -1, product_ = -1, resource_tags_ = -1;
  TextColumns text_;
  std::vector<std::pair<int, std::string>> tags_;
  TagReader tag_reader_;
};

}  // namespace

std::unique_ptr<CsvDialect> make_aws_cur_dialect() { return std::make_unique<AwsCurDialect>(); }

}  // namespace aicost::billing
