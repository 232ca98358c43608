// GCP BigQuery billing export flattened to CSV (nested fields as dotted columns, arrays of structs
// as Python-repr or JSON lists), mapped to FOCUS by the focus_converters recipe
// (../shared/data/billing-samples/focus-converters/conversion_rules_gcp.csv; finops.md §1.6, §10).
#include <cctype>

#include "aicost/core/amount.h"
#include "dialect.h"

namespace aicost::billing {
namespace {

// One struct of a list: field → scalar text ("" for None/null).
using Struct = std::vector<std::pair<std::string, std::string>>;

// A list of flat structs as BigQuery-to-CSV tools write it: Python repr
// ([{'key': 'team', 'value': 'ml'}], None, True) or JSON ([{"key": "team", "value": "ml"}], null).
// nullopt when it is neither, or a field is itself a list or struct.
class ListReader {
 public:
  explicit ListReader(std::string_view s) : s_(s) {}

  std::optional<std::vector<Struct>> read() {
    std::vector<Struct> out;
    if (!eat('[')) return std::nullopt;
    if (eat(']')) return end() ? std::optional(out) : std::nullopt;
    do {
      if (!eat('{')) return std::nullopt;
      Struct st;
      if (!eat('}')) {
        do {
          std::string key, value;
          if (!quote_cell(key) || !eat(':') || !scalar(value)) return std::nullopt;
          st.emplace_back(std::move(key), std::move(value));
        } while (eat(','));
        if (!eat('}')) return std::nullopt;
      }
      out.push_back(std::move(st));
    } while (eat(','));
    if (!eat(']') || !end()) return std::nullopt;
    return out;
  }

 private:
  void space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool end() {
    space();
    return pos_ == s_.size();
  }
  bool quote_cell(std::string& out) {
    space();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return false;
    const char q = s_[pos_++];
    while (pos_ < s_.size() && s_[pos_] != q) {
      char c = s_[pos_++];
      if (c == '\\' && pos_ < s_.size()) {
        c = s_[pos_++];
        c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
      }
      out += c;
    }
    return pos_++ < s_.size();
  }
  bool scalar(std::string& out) {
    space();
    if (pos_ < s_.size() && (s_[pos_] == '\'' || s_[pos_] == '"')) return quote_cell(out);
    const auto start = pos_;
    while (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != '}' && s_[pos_] != '[' &&
           s_[pos_] != '{')
      ++pos_;
    auto v = s_.substr(start, pos_ - start);
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    if (v.empty()) return false;
    if (v != "None" && v != "null") out = v;
    return true;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

const std::string* field(const Struct& st, std::string_view name) {
  for (const auto& [k, v] : st)
    if (k == name) return &v;
  return nullptr;
}

// cost_type → ChargeCategory; credits are FOCUS Credit rows (the recipe writes Adjustment).
const char* charge_category(std::string_view t) {
  if (t == "tax") return "Tax";
  if (t == "credit") return "Credit";
  if (t == "adjustment" || t == "rounding_error") return "Adjustment";
  return "Usage";
}

// invoice.month (YYYYMM) starts at midnight Pacific time (recipe: America/Los_Angeles): UTC-7 for
// April to November (DST covers the 1st of those months), UTC-8 otherwise.
std::optional<ledger::UnixSeconds> invoice_month(std::string_view m) {
  if (m.size() != 6) return std::nullopt;
  const auto t =
      parse_datetime(std::string(m.substr(0, 4)) + "-" + std::string(m.substr(4, 2)) + "-01");
  if (!t) return std::nullopt;
  const int month = (m[4] - '0') * 10 + (m[5] - '0');
  return *t + (month >= 4 && month <= 11 ? 7 : 8) * 3600;
}

constexpr TextColumn kText[] = {
    {{"billing_account_id"}, &ledger::Charge::billing_account_id},
    {{"project.id"}, &ledger::Charge::sub_account_id},
    {{"project.name"}, &ledger::Charge::sub_account_name},
    {{"service.description"}, &ledger::Charge::service_name},
    {{"sku.id"}, &ledger::Charge::sku_id},
    {{"sku.description"}, &ledger::Charge::charge_description},
    {{"location.region"}, &ledger::Charge::region_id},
    {{"resource.global_name"}, &ledger::Charge::resource_id},
    {{"resource.name"}, &ledger::Charge::resource_name},
    {{"usage.unit"}, &ledger::Charge::consumed_unit},
    {{"usage.pricing_unit"}, &ledger::Charge::pricing_unit},
};

class GcpDialect final : public CsvDialect {
 public:
  core::Status header(const std::vector<std::string_view>& names, IssueLog& log) override {
    Columns cols(names);
    cost_ = cols.find({"cost"});
    start_ = cols.find({"usage_start_time"});
    if (cost_ < 0 || start_ < 0)
      return core::make_error(
          core::ErrorCode::kInvalidInput,
          std::string("not a GCP billing export: no ") +
              (cost_ < 0 ? (start_ < 0 ? "cost and no usage_start_time" : "cost")
                         : "usage_start_time") +
              " column");
    end_ = cols.find({"usage_end_time"});
    currency_ = cols.find({"currency"});
    list_ = cols.find({"cost_at_list"});
    credits_ = cols.find({"credits"});
    invoice_ = cols.find({"invoice.month"});
    location_ = cols.find({"location.location"});
    text_ = TextColumns(cols, kText);
    cost_type_ = cols.find({"cost_type"});
    usage_ = cols.find({"usage.amount"});
    pricing_ = cols.find({"usage.amount_in_pricing_units"});
    labels_ = cols.find({"labels"});
    if (currency_ < 0) log.note("currency", "no currency column; amounts are stored under XXX");
    return cols.check_duplicates(log);
  }

  bool row(const CsvRecord& r, ledger::Charge& c, IssueLog& log, std::int64_t& rounded) override {
    c.line = r.line;
    const auto start = required_time(r, start_, "usage_start_time", log);
    if (!start) return false;
    c.period_start = *start;
    c.period_end = parse_datetime(cell(r, end_)).value_or(*start);
    c.billing_period_start = invoice_month(cell(r, invoice_)).value_or(month_start(*start));

    const auto cost = required_cost(r, cost_, "cost", log, rounded);
    if (!cost) return false;
    c.billed = *cost;
    c.list = cost_or(r, list_, "cost_at_list", c.billed, "cost", log, rounded);
    // `cost` is before credits (free tier, committed-use and sustained-use discounts, promotions);
    // the credits' amounts are negative, so EffectiveCost = cost + Σ credits.amount. The recipe
    // also clamps the sum at 0, which only hid float noise; exact sums need no clamp.
    if (__builtin_add_overflow(c.billed, credits(r, log), &c.effective)) {
      c.effective = c.billed;
      log.warn(r.line, "credits",
               "the cost with its credits is out of range; EffectiveCost taken as the cost");
    }
    c.currency = currency_cell(r, currency_, "currency", log);
    c.provider = "Google Cloud";
    text_.read(r, c);
    if (c.region_id.empty()) c.region_id = text_cell(r, location_);
    c.charge_category = charge_category(cell(r, cost_type_));
    c.consumed_quantity = quantity_cell(r, usage_, "usage.amount", log);
    c.pricing_quantity = quantity_cell(r, pricing_, "usage.amount_in_pricing_units", log);
    if (c.charge_category == std::string_view("Usage")) c.charge_frequency = "Usage-Based";
    labels(r, c, log);
    // GPU SKUs ("Nvidia Tesla A100 GPU running in Americas") are priced per GPU-hour.
    if (c.charge_description.find("GPU running") != std::string::npos && c.pricing_unit == "hour" &&
        c.pricing_quantity)
      c.gpu_hours = *c.pricing_quantity;
    return true;
  }

  std::string version() const override { return "gcp"; }
  std::string_view tags_column() const override { return "labels"; }

 private:
  std::int64_t credits(const CsvRecord& r, IssueLog& log) {
    const auto text = cell(r, credits_);
    if (is_null(text)) return 0;
    auto list = ListReader(text).read();
    std::int64_t sum = 0;
    bool ok = list.has_value();
    for (const auto& st : list.value_or(std::vector<Struct>{})) {
      const auto* amount = field(st, "amount");
      const auto a = amount ? core::parse_amount(*amount) : std::nullopt;
      ok = ok && a;
      if (a && __builtin_add_overflow(sum, a->nanos, &sum)) ok = false;
    }
    if (ok) return sum;
    log.warn(r.line, "credits",
             "credits is not a list of {amount: ...} (" + quote_cell(text) +
                 "); EffectiveCost taken as the cost");
    return 0;
  }

  void labels(const CsvRecord& r, ledger::Charge& c, IssueLog& log) {
    const auto text = cell(r, labels_);
    if (is_null(text)) return;
    auto list = ListReader(text).read();
    if (list) {
      for (const auto& st : *list) {
        const auto *key = field(st, "key"), *value = field(st, "value");
        if (key) c.tags.push_back({*key, value ? *value : std::string()});
      }
      return;
    }
    log.warn(r.line, "labels",
             "labels is not a list of {key, value} (" + quote_cell(text) +
                 "); the row is loaded unlabelled");
  }

  int cost_ = -1, start_ = -1, end_ = -1, currency_ = -1, list_ = -1, credits_ = -1, invoice_ = -1,
      location_ = -1, cost_type_ = -1, usage_ = -1, pricing_ = -1, labels_ = -1;
  TextColumns text_;
};

}  // namespace

std::unique_ptr<CsvDialect> make_gcp_dialect() { return std::make_unique<GcpDialect>(); }

}  // namespace aicost::billing
