// FOCUS 1.0 / 1.1 / 1.2 / 1.3 cost-and-usage CSV (../shared/reference/finops.md §1,
// docs/LEDGER.md).
#include <algorithm>

#include "aicost/core/suggest.h"
#include "aicost/core/text.h"
#include "dialect.h"
#include "focus_columns.h"
#include "focus_rules.h"

namespace aicost::billing {
namespace {

// Tag keys an allocated charge's AllocatedResourceId and AllocatedResourceName are reported under
// (docs/LEDGER.md, "FOCUS 1.3").
constexpr std::string_view kAllocatedResourceIdTag = "x_AllocatedResourceId";
constexpr std::string_view kAllocatedResourceNameTag = "x_AllocatedResourceName";

bool hours_unit(std::string_view u) {
  const std::string s = core::ascii_lower(u);
  return s == "hours" || s == "hour" || s == "hrs" || s == "hr" || s == "h" ||
         s == "instance-hours";
}

const char* form_name(DateForm f) {
  switch (f) {
    case DateForm::kNoZone: return "without T and Z";
    case DateForm::kOffset: return "with a UTC offset";
    case DateForm::kDateOnly: return "as a date without time";
    case DateForm::kUsDate: return "as M/D/YYYY";
    case DateForm::kIso: return "ISO 8601";
  }
  return "";
}

class FocusDialect final : public CsvDialect {
 public:
  core::Status header(const std::vector<std::string_view>& names, IssueLog& log) override {
    Columns cols(names);
    auto col = [&](const char* n) { return cols.find({n}); };
    billed_ = col("BilledCost");
    start_ = col("ChargePeriodStart");
    if (billed_ < 0 || start_ < 0)
      return core::make_error(core::ErrorCode::kInvalidInput,
                              std::string("not a FOCUS cost-and-usage file: no ") +
                                  (billed_ < 0 ? "BilledCost" : "ChargePeriodStart") + " column");
    end_ = col("ChargePeriodEnd");
    billing_start_ = col("BillingPeriodStart");
    currency_ = col("BillingCurrency");
    effective_ = col("EffectiveCost");
    list_ = col("ListCost");
    contracted_ = col("ContractedCost");
    // FOCUS 1.3 deprecates ProviderName for ServiceProviderName: the new one wins, row by row.
    provider_ = col("ServiceProviderName");
    legacy_provider_ = col("ProviderName");
    if (provider_ < 0) std::swap(provider_, legacy_provider_);
    billing_account_ = col("BillingAccountId");
    billing_account_name_ = col("BillingAccountName");
    sub_account_ = col("SubAccountId");
    sub_account_name_ = col("SubAccountName");
    service_ = col("ServiceName");
    service_category_ = col("ServiceCategory");
    region_ = col("RegionId");
    resource_ = col("ResourceId");
    resource_name_ = col("ResourceName");
    resource_type_ = col("ResourceType");
    sku_ = col("SkuId");
    charge_category_ = col("ChargeCategory");
    charge_class_ = col("ChargeClass");
    charge_frequency_ = col("ChargeFrequency");
    pricing_category_ = col("PricingCategory");
    commitment_id_ = col("CommitmentDiscountId");
    commitment_status_ = col("CommitmentDiscountStatus");
    pricing_unit_ = col("PricingUnit");
    consumed_unit_ = col("ConsumedUnit");
    description_ = col("ChargeDescription");
    pricing_quantity_ = col("PricingQuantity");
    consumed_quantity_ = col("ConsumedQuantity");
    tags_ = col("Tags");
    sku_details_ = col("SkuPriceDetails");
    gpu_hours_ = col("x_GpuHours");
    allocated_tags_ = col("AllocatedTags");
    allocated_resource_ = col("AllocatedResourceId");
    allocated_resource_name_ = col("AllocatedResourceName");

    // Version: the newest whose additions are present.
    auto any_of_set = [&](const auto& set) {
      return std::any_of(set.begin(), set.end(), [&](const char* n) { return cols.has(n); });
    };
    version_ = any_of_set(kFocus13)   ? "focus-1.3"
               : any_of_set(kFocus12) ? "focus-1.2"
               : any_of_set(kFocus11) ? "focus-1.1"
                                      : "focus-1.0";
    const bool focus13 = version_ == "focus-1.3";

    std::vector<std::string> known;
    for (auto n : kFocus10) known.emplace_back(n);
    for (auto n : kFocus11) known.emplace_back(n);
    for (auto n : kFocus12) known.emplace_back(n);
    for (auto n : kFocus13) known.emplace_back(n);
    std::string missing;
    for (auto n : focus_rules::missing_mandatory(focus_rules::Dataset::kCostAndUsage,
                                                 version_.substr(6), cols))
      missing += std::string(missing.empty() ? "" : ", ") + std::string(n);
    if (!missing.empty()) log.note("", "mandatory FOCUS columns missing: " + missing);
    if (focus13)
      for (const auto& d : focus_rules::deprecated_columns()) {
        if (!cols.has(d.column)) continue;
        std::string text =
            std::string(d.column) + " is deprecated since FOCUS " + std::string(d.version);
        if (!d.replaced_by.empty()) text += " (replaced by " + std::string(d.replaced_by) + ")";
        if (d.column != "ProviderName")
          text += "; accepted, not read";
        else if (provider_ == legacy_provider_ || legacy_provider_ < 0)
          text += "; still read as the provider";
        else
          text += "; still read, as the provider where ServiceProviderName is null";
        log.info(d.column, std::move(text));
      }
    // Files before 1.3 keep the checks they had: the allowed values of three columns whose lists
    // are the same in 1.0, 1.1 and 1.2 (the model's lists are 1.2's).
    static constexpr std::string_view kBefore13[] = {"ChargeCategory", "ChargeFrequency",
                                                     "PricingCategory"};
    if (focus13)
      checker_.bind(focus_rules::Dataset::kCostAndUsage, cols, focus_rules::RowChecker::Scope::kAll,
                    kReaderChecked);
    else
      checker_.bind(focus_rules::Dataset::kCostAndUsage, cols,
                    focus_rules::RowChecker::Scope::kAllowedValues, {}, kBefore13);
    if (currency_ < 0)
      log.note("BillingCurrency",
               "no BillingCurrency column; amounts are stored under XXX (ISO 4217: no currency)");
    if (effective_ < 0)
      log.note("EffectiveCost", "no EffectiveCost column; EffectiveCost taken as BilledCost");
    if (list_ < 0) log.note("ListCost", "no ListCost column; ListCost taken as BilledCost");
    // Each unknown column is named with a did-you-mean, up to kNamed of them; the rest are
    // counted in one note (a header of thousands of junk names costs an edit distance each).
    constexpr std::size_t kNamed = 50;
    std::size_t unknown = 0;
    for (const auto& n : cols.names()) {
      if (n.empty() || n.rfind("x_", 0) == 0) continue;
      if (std::find(known.begin(), known.end(), n) != known.end()) continue;
      auto same_but_case = std::find_if(known.begin(), known.end(),
                                        [&](const std::string& k) { return core::iequals(k, n); });
      if (same_but_case != known.end()) {
        log.note(n, "column '" + n + "' differs in case from FOCUS '" + *same_but_case +
                        "'; read as it");
        continue;
      }
      if (++unknown > kNamed) continue;
      // No FOCUS name is longer than 40 characters: a longer header is no typo of one (and an
      // edit distance over it would cost seconds on a hostile file).
      const std::string shown = n.size() > 80 ? std::string(core::utf8_prefix(n, 80)) + "..." : n;
      log.note(shown, "column '" + shown + "' is not a FOCUS " + version_.substr(6) +
                          " column and has no x_ prefix; ignored." +
                          (n.size() <= 48 ? core::did_you_mean(n, known) : std::string()));
    }
    if (unknown > kNamed)
      log.note("", std::to_string(unknown - kNamed) + " more columns are not FOCUS " +
                       version_.substr(6) + " columns and have no x_ prefix; ignored");
    return cols.check_duplicates(log);
  }

  bool row(const CsvRecord& r, ledger::Charge& c, IssueLog& log, std::int64_t& rounded) override {
    c.line = r.line;
    // First, so that a row rejected below is still checked in full (`ledger validate`).
    checker_.check(r, log);
    DateForm form = DateForm::kIso;
    const auto start = required_time(r, start_, "ChargePeriodStart", log, &form);
    if (!start) return false;
    note_form(r.line, "ChargePeriodStart", form, cell(r, start_), log);
    c.period_start = *start;
    c.period_end = *start;
    if (end_ >= 0) {
      const auto t = cell(r, end_);
      bool out_of_range = false;
      if (auto e = parse_datetime(t, &form, &out_of_range)) {
        c.period_end = *e;
        note_form(r.line, "ChargePeriodEnd", form, t, log);
      } else {
        log.warn(r.line, "ChargePeriodEnd",
                 not_a_datetime(t, out_of_range) + "; taken as ChargePeriodStart");
      }
    }
    c.billing_period_start = *start;
    if (billing_start_ >= 0) {
      if (auto b = parse_datetime(cell(r, billing_start_))) c.billing_period_start = *b;
    }

    const auto billed = amount_cell(r, billed_, "BilledCost", log, rounded);
    if (!billed.value) {
      log.error(r.line, "BilledCost",
                billed.null ? "BilledCost is null; FOCUS requires a value" : billed.why_not());
      return false;
    }
    c.billed = *billed.value;
    c.effective = other_cost(r, effective_, "EffectiveCost", c.billed, log, rounded);
    c.list = other_cost(r, list_, "ListCost", c.billed, log, rounded);
    c.contracted.reset();
    if (contracted_ >= 0) {
      const auto v = amount_cell(r, contracted_, "ContractedCost", log, rounded);
      if (v.value)
        c.contracted = v.value;
      else if (v.null)
        log.warn_repeated(r.line, "ContractedCost", "null",
                          "ContractedCost is null; FOCUS requires a value; left empty");
      else
        log.warn(r.line, "ContractedCost", v.why_not() + "; left empty");
    }

    c.currency = currency_cell(r, currency_, "BillingCurrency", log);
    assign(c.provider, r, provider_);
    if (c.provider.empty() && legacy_provider_ >= 0) assign(c.provider, r, legacy_provider_);
    assign(c.billing_account_id, r, billing_account_);
    assign(c.billing_account_name, r, billing_account_name_);
    assign(c.sub_account_id, r, sub_account_);
    assign(c.sub_account_name, r, sub_account_name_);
    assign(c.service_name, r, service_);
    assign(c.service_category, r, service_category_);
    assign(c.region_id, r, region_);
    assign(c.resource_id, r, resource_);
    assign(c.resource_name, r, resource_name_);
    assign(c.resource_type, r, resource_type_);
    assign(c.sku_id, r, sku_);
    assign(c.charge_category, r, charge_category_);
    assign(c.charge_class, r, charge_class_);
    assign(c.charge_frequency, r, charge_frequency_);
    assign(c.pricing_category, r, pricing_category_);
    assign(c.commitment_discount_id, r, commitment_id_);
    assign(c.commitment_discount_status, r, commitment_status_);
    assign(c.pricing_unit, r, pricing_unit_);
    assign(c.consumed_unit, r, consumed_unit_);
    assign(c.charge_description, r, description_);
    c.pricing_quantity = quantity_cell(r, pricing_quantity_, "PricingQuantity", log);
    c.consumed_quantity = quantity_cell(r, consumed_quantity_, "ConsumedQuantity", log);

    tags_reader_.read(r, tags_, "Tags", c.tags, log);
    if (allocated_tags_ >= 0 || allocated_resource_ >= 0) add_allocation(r, c, log);
    c.gpu_hours = gpu_hours(r, c, log);
    return true;
  }

  std::string version() const override { return version_; }

 private:
  static void assign(std::string& out, const CsvRecord& r, int i) {
    const auto v = cell(r, i);
    if (is_null(v))
      out.clear();
    else
      out.assign(v);
  }

  std::int64_t other_cost(const CsvRecord& r, int i, const char* name, std::int64_t billed,
                          IssueLog& log, std::int64_t& rounded) {
    if (i < 0) return billed;
    const auto v = amount_cell(r, i, name, log, rounded);
    if (v.value) return *v.value;
    if (v.null)
      log.warn_repeated(r.line, name, "null", std::string(name) + " is null; taken as BilledCost");
    else
      log.warn(r.line, name, v.why_not() + "; taken as BilledCost");
    return billed;
  }

  static void note_form(std::int64_t line, const char* column, DateForm form, std::string_view text,
                        IssueLog& log) {
    if (form == DateForm::kIso) return;
    log.warn_repeated(line, column, form_name(form), [&] {
      return "'" + std::string(text) + "' is not ISO 8601 'YYYY-MM-DDTHH:mm:ssZ' (written " +
             form_name(form) + "); read as UTC";
    });
  }

  // An allocated charge (FOCUS 1.3 split cost allocation) stays on its ResourceId, the resource
  // billed (the host that telemetry and waste findings name); what it is allocated to joins its
  // tags: AllocatedTags, and AllocatedResourceId/Name under kAllocatedResource*Tag. The spec
  // forbids AllocatedTags to repeat a key of Tags; where one does, the Tags value is kept.
  void add_allocation(const CsvRecord& r, ledger::Charge& c, IssueLog& log) {
    allocated_.clear();
    // A cell that is no JSON object is the generated rule's finding (kind: JSON object); its tags
    // are left out, the row keeps its own.
    if (focus_rules::is_json_object(cell(r, allocated_tags_)))
      allocated_tags_reader_.read(r, allocated_tags_, "AllocatedTags", allocated_, log);
    auto add = [&](std::string_view key, std::string_view value) {
      const auto clash = std::find_if(c.tags.begin(), c.tags.end(), [&](const ledger::Tag& t) {
        return ledger::canonical_tag_key(t.key) == ledger::canonical_tag_key(key);
      });
      if (clash == c.tags.end()) {
        c.tags.push_back({std::string(key), std::string(value)});
        return;
      }
      if (clash->value == value) return;
      log.warn_repeated(r.line, "AllocatedTags", "clash:" + std::string(key), [&] {
        return "AllocatedTags repeats the key '" + std::string(key) +
               "' of Tags with another value, which FOCUS 1.3 forbids; the Tags value is kept";
      });
    };
    for (const auto& t : allocated_) add(t.key, t.value);
    const auto id = cell(r, allocated_resource_);
    if (!is_null(id)) add(kAllocatedResourceIdTag, id);
    const auto name = cell(r, allocated_resource_name_);
    if (!is_null(name)) add(kAllocatedResourceNameTag, name);
  }

  double gpu_hours(const CsvRecord& r, const ledger::Charge& c, IssueLog& log) {
    if (gpu_hours_ >= 0) {
      if (auto q = quantity_cell(r, gpu_hours_, "x_GpuHours", log)) return *q;
    }
    const auto details = cell(r, sku_details_);
    if (is_null(details)) return 0;
    auto parsed = parse_tag_object(details);
    if (!parsed) return 0;
    for (const auto& t : parsed->tags) {
      if (t.key != "GpuCount") continue;
      char* end = nullptr;
      const double gpus = std::strtod(t.value.c_str(), &end);
      if (end == t.value.c_str()) return 0;
      if (c.consumed_quantity && hours_unit(c.consumed_unit)) return gpus * *c.consumed_quantity;
      if (c.pricing_quantity && hours_unit(c.pricing_unit)) return gpus * *c.pricing_quantity;
    }
    return 0;
  }

  int billed_ = -1, start_ = -1, end_ = -1, billing_start_ = -1, currency_ = -1, effective_ = -1,
      list_ = -1, contracted_ = -1, provider_ = -1, billing_account_ = -1,
      billing_account_name_ = -1, sub_account_ = -1, sub_account_name_ = -1, service_ = -1,
      service_category_ = -1, region_ = -1, resource_ = -1, resource_name_ = -1,
      resource_type_ = -1, sku_ = -1, charge_category_ = -1, charge_class_ = -1,
      charge_frequency_ = -1, pricing_category_ = -1, commitment_id_ = -1, commitment_status_ = -1,
      pricing_unit_ = -1, consumed_unit_ = -1, description_ = -1, pricing_quantity_ = -1,
      consumed_quantity_ = -1, tags_ = -1, sku_details_ = -1, gpu_hours_ = -1,
      legacy_provider_ = -1, allocated_tags_ = -1, allocated_resource_ = -1,
      allocated_resource_name_ = -1;
  std::string version_ = "focus-1.0";
  TagReader tags_reader_, allocated_tags_reader_;
  std::vector<ledger::Tag> allocated_;
  focus_rules::RowChecker checker_;
};

}  // namespace

std::unique_ptr<CsvDialect> make_focus_dialect() { return std::make_unique<FocusDialect>(); }

}  // namespace aicost::billing
