#include "aicost/ledger/rate_card.h"

#include <cctype>
#include <cmath>

namespace aicost::ledger {

std::string rate_key(std::string_view gpu_type) {
  std::string out(gpu_type);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

bool needs_price(const Charge& c) { return c.currency.empty() && c.gpu_hours > 0; }

bool price_usage(Charge& c, const RateCard& card) {
  const RateCard::Rate* rate = nullptr;
  if (c.sku_id.empty()) {
    if (card.untyped) rate = &*card.untyped;
  } else if (auto it = card.gpus.find(rate_key(c.sku_id)); it != card.gpus.end()) {
    rate = &it->second;
  }
  if (!rate) return false;
  // GPU-hours are a double; long double keeps the product exact to well below a nano-unit for any
  // cost a row can hold (|cost| < 9.2e9 units).
  const long double nanos = static_cast<long double>(rate->nanos_per_gpu_hour) * c.gpu_hours;
  c.billed = c.effective = c.list = static_cast<std::int64_t>(std::llroundl(nanos));
  c.currency = card.currency;
  c.pricing_category = "Standard";
  return true;
}

std::string unpriced_message(const std::set<std::string>& types, const RateCard& card) {
  std::string names, example;
  for (const auto& t : types) {
    names += (names.empty() ? "" : ", ") + (t.empty() ? std::string("(untyped)") : t);
    if (example.empty() && !t.empty()) example = "`" + rate_key(t) + ": <price>" + card.currency + "/h` under `gpus:`";
  }
  if (example.empty()) example = "`untyped: <price>" + card.currency + "/h`";
  else if (types.count("")) example += " (and `untyped:` for GPUs without a type)";
  return "no rate for GPU type" + std::string(types.size() > 1 ? "s " : " ") + names + " in " + card.source +
         ": add " + (types.size() > 1 ? "them" : "it") + " as " + example +
         "; nothing was loaded, since a row without its price would count as free";
}

}  // namespace aicost::ledger
