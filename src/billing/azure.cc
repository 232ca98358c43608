// Azure cost details: EA (PascalCase), MCA (camelCase), pay-as-you-go and the legacy usage export
// (PreTaxCost, UsageDateTime), actual or amortised, with English or localised headers, mapped to
// FOCUS by the focus_converters recipe (../shared/data/billing-samples/focus-converters/
// conversion_rules_azure.csv; ../shared/reference/finops.md §1.6, §10).
#include <limits>

#include "aicost/core/amount.h"
#include "dialect.h"

namespace aicost::billing {
namespace {

constexpr ledger::UnixSeconds kDay = 86400;

// Localised exports write "Abonnement-GUID (SubscriptionGuid)": the English name in trailing
// parentheses is the one to look up.
std::string english_name(std::string_view n) {
  while (!n.empty() && (n.back() == ' ' || n.back() == '\r')) n.remove_suffix(1);
  const auto open = n.rfind('(');
  if (n.empty() || n.back() != ')' || open == std::string_view::npos || open + 2 >= n.size())
    return std::string(n);
  return std::string(n.substr(open + 1, n.size() - open - 2));
}

// ChargeType → ChargeCategory. Unused commitment is usage of the commitment (recipe); refunds are
// FOCUS Credit rows (the recipe writes Adjustment, FOCUS 1.0 added Credit).
const char* charge_category(std::string_view t) {
  if (t == "Usage" || t == "UnusedReservation" || t == "UnusedSavingsPlan") return "Usage";
  if (t == "Purchase") return "Purchase";
  if (t == "Tax") return "Tax";
  if (t == "Refund") return "Credit";
  return "Adjustment";
}

const char* pricing_category(std::string_view m) {
  if (m.empty()) return "";
  if (m == "OnDemand") return "Standard";
  if (m == "Spot") return "Dynamic";
  if (m == "Reservation" || m == "SavingsPlan" || m == "Savings Plan" || m == "Savings Plans")
    return "Committed";
  return "Other";
}

const char* charge_frequency(std::string_view f) {
  if (f == "OneTime") return "One-Time";
  if (f == "Recurring") return "Recurring";
  if (f == "UsageBased") return "Usage-Based";
  return "";
}

constexpr TextColumn kText[] = {
    {{"BillingAccountId"}, &ledger::Charge::billing_account_id},
    {{"BillingAccountName"}, &ledger::Charge::billing_account_name},
    {{"SubscriptionId", "SubscriptionGuid"}, &ledger::Charge::sub_account_id},
    {{"SubscriptionName"}, &ledger::Charge::sub_account_name},
    {{"ConsumedService"}, &ledger::Charge::service_name},
    {{"ResourceLocation"}, &ledger::Charge::region_id},
    {{"ResourceId", "InstanceId", "InstanceName"}, &ledger::Charge::resource_id},
    {{"ResourceName"}, &ledger::Charge::resource_name},
    {{"ResourceType"}, &ledger::Charge::resource_type},
    {{"MeterId"}, &ledger::Charge::sku_id},
    {{"ProductName", "Product", "MeterName"}, &ledger::Charge::charge_description},
    {{"UnitOfMeasure"}, &ledger::Charge::pricing_unit},
};

class AzureDialect final : public CsvDialect {
 public:
  core::Status header(const std::vector<std::string_view>& names, IssueLog& log) override {
    std::vector<std::string> english;
    for (auto n : names) english.push_back(english_name(n));
    const Columns cols(std::vector<std::string_view>(english.begin(), english.end()));
    cost_ = cols.find({"CostInBillingCurrency", "costInBillingCurrency", "Cost", "PreTaxCost"});
    date_ = cols.find({"Date", "date", "UsageDateTime", "UsageDate"});
    if (cost_ < 0 || date_ < 0) {
      std::string missing =
          cost_ < 0 ? "cost column (CostInBillingCurrency, Cost or PreTaxCost)" : "";
      if (date_ < 0)
        missing +=
            std::string(missing.empty() ? "" : " and no ") + "date column (Date or UsageDateTime)";
      return core::make_error(core::ErrorCode::kInvalidInput,
                              "not an Azure cost export: no " + missing);
    }
    cost_name_ = cols.names()[static_cast<std::size_t>(cost_)];
    date_name_ = cols.names()[static_cast<std::size_t>(date_)];
    currency_ =
        cols.find({"BillingCurrencyCode", "billingCurrency", "BillingCurrency", "Currency"});
    payg_cost_ = cols.find({"paygCostInBillingCurrency"});
    payg_price_ = cols.find({"PayGPrice"});
    quantity_ = cols.find({"Quantity", "UsageQuantity"});
    billing_start_ = cols.find({"BillingPeriodStartDate"});
    text_ = TextColumns(cols, kText);
    meter_category_ = cols.find({"MeterCategory"});
    charge_type_ = cols.find({"ChargeType"});
    frequency_ = cols.find({"Frequency"});
    pricing_model_ = cols.find({"PricingModel"});
    benefit_ = cols.find({"benefitId"});
    reservation_ = cols.find({"ReservationId"});
    tags_ = cols.find({"Tags"});
    if (currency_ < 0)
      log.note("",
               "no billing-currency column; amounts are stored under XXX (ISO 4217: no currency)");
    return cols.check_duplicates(log);
  }

  bool row(const CsvRecord& r, ledger::Charge& c, IssueLog& log, std::int64_t& rounded) override {
    c.line = r.line;
    const auto date_text = cell(r, date_);
    bool out_of_range = false;
    const auto date = parse_datetime(date_text, nullptr, &out_of_range);
    if (!date) {
      log.error(r.line, date_name_,
                is_null(date_text) ? "the date is null; the row has no time"
                                   : not_a_datetime(date_text, out_of_range, "a date"));
      return false;
    }
    // Cost details rows are daily.
    c.period_start = *date;
    c.period_end = *date + kDay;
    c.billing_period_start = month_start(*date);
    if (auto b = parse_datetime(cell(r, billing_start_))) c.billing_period_start = *b;

    const auto cost = required_cost(r, cost_, cost_name_, log, rounded);
    if (!cost) return false;
    c.billed = *cost;
    // The cost column is what the view says: billed in an actual-cost export, amortised in an
    // amortised one (EffectivePrice × Quantity), so EffectiveCost is the same column (recipe).
    c.effective = *cost;
    c.currency = currency_cell(r, currency_, "BillingCurrency", log);
    c.provider = "Microsoft";
    text_.read(r, c);
    if (c.service_name.empty()) c.service_name = text_cell(r, meter_category_);

    const auto type = cell(r, charge_type_);
    c.charge_category = charge_type_ < 0 || is_null(type) ? "Usage" : charge_category(type);
    if (!is_null(type) && c.charge_category == std::string_view("Adjustment") &&
        type != "RoundingAdjustment")
      log.warn_repeated(r.line, "ChargeType", "value:" + std::string(type),
                        "ChargeType '" + std::string(type) +
                            "' is not a known Azure charge type; read as Adjustment");
    c.charge_frequency = charge_frequency(cell(r, frequency_));
    c.pricing_category = pricing_category(text_cell(r, pricing_model_));
    c.commitment_discount_id = text_cell(r, benefit_);
    if (c.commitment_discount_id.empty()) c.commitment_discount_id = text_cell(r, reservation_);
    if (type == "UnusedReservation" || type == "UnusedSavingsPlan")
      c.commitment_discount_status = "Unused";
    else if (type == "Usage" && c.pricing_category == std::string_view("Committed"))
      c.commitment_discount_status = "Used";
    if (c.charge_category == std::string_view("Purchase") &&
        c.pricing_category == std::string_view("Committed") && c.billed != 0)
      log.warn_repeated(r.line, cost_name_, "purchase",
                        "a commitment purchase with a cost (an actual-cost view): EffectiveCost is "
                        "the purchase as billed, not amortised; the amortised export has that");

    c.pricing_quantity = quantity_cell(r, quantity_, "Quantity", log);
    if (c.charge_category == std::string_view("Usage")) {
      c.consumed_unit = c.pricing_unit;
      c.consumed_quantity = c.pricing_quantity;
    }
    c.list = list_cost(r, c, log, rounded);
    tag_reader_.read(r, tags_, "Tags", c.tags, log);
    return true;
  }

  std::string version() const override { return "azure"; }

 private:
  // paygCostInBillingCurrency, else PayGPrice × Quantity (exact), else the cost. A zero
  // pay-as-you-go price on a charged row (commitment purchases, exports that leave it 0) says
  // nothing: the cost.
  std::int64_t list_cost(const CsvRecord& r, const ledger::Charge& c, IssueLog& log,
                         std::int64_t& rounded) {
    std::optional<std::int64_t> list;
    if (payg_cost_ >= 0)
      list = amount_cell(r, payg_cost_, "paygCostInBillingCurrency", log, rounded).value;
    if (!list && payg_price_ >= 0) {
      const auto price = core::parse_amount(cell(r, payg_price_));
      const auto qty = core::parse_amount(cell(r, quantity_));
      if (price && qty) {
        const core::WideNanos p = static_cast<core::WideNanos>(price->nanos) * qty->nanos;
        core::WideNanos q = p / core::kNanosPerUnit, rem = p % core::kNanosPerUnit;
        if (rem < 0) rem = -rem;
        // Half to even, like the amounts themselves.
        if (rem * 2 > core::kNanosPerUnit || (rem * 2 == core::kNanosPerUnit && q % 2 != 0))
          q += p < 0 ? -1 : 1;
        if (q >= std::numeric_limits<std::int64_t>::min() &&
            q <= std::numeric_limits<std::int64_t>::max())
          list = static_cast<std::int64_t>(q);
      }
    }
    if (!list) return c.billed;
    if (*list == 0 && c.billed != 0) {
      log.warn_repeated(
          r.line, payg_cost_ >= 0 ? "paygCostInBillingCurrency" : "PayGPrice", "zero",
          "the pay-as-you-go price is 0 on a charged row; ListCost taken as the cost");
      return c.billed;
    }
    return *list;
  }

  int cost_ = -1, date_ = -1, currency_ = -1, payg_cost_ = -1, payg_price_ = -1, quantity_ = -1,
      billing_start_ = -1, meter_category_ = -1, charge_type_ = -1, frequency_ = -1,
      pricing_model_ = -1, benefit_ = -1, reservation_ = -1, tags_ = -1;
  TextColumns text_;
  std::string cost_name_, date_name_;
  TagReader tag_reader_;
};

}  // namespace

std::unique_ptr<CsvDialect> make_azure_dialect() { return std::make_unique<AzureDialect>(); }

}  // namespace aicost::billing
