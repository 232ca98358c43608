#include "aicost/ledger/rate_card.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "aicost/core/text.h"

namespace aicost::ledger {
namespace {

// What a CPU, memory or storage row is priced by, from its unit; nullptr for other rows.
struct Resource {
  std::string_view unit;
  const char* key;   // in the card
  const char* what;  // in messages
  const char* per;   // the unit a rate is written per
  std::optional<RateCard::Rate> RateCard::*rate;
};
constexpr Resource kResources[] = {
    {kCoreHours, "cpu", "CPU core-hours", "core-hour", &RateCard::cpu},
    {kGibHours, "memory", "memory GiB-hours", "GiB-hour", &RateCard::memory},
    {kGibMonths, "storage", "storage GiB-months", "GiB-month", &RateCard::storage},
    {kVmHours, "vm", "virtual machine VM-hours", "VM-hour", &RateCard::vm},
};

const Resource* resource_of(const Charge& c) {
  if (c.gpu_hours > 0 || !c.pricing_quantity) return nullptr;
  for (const auto& r : kResources)
    if (c.pricing_unit == r.unit) return &r;
  return nullptr;
}

}  // namespace

std::string rate_key(std::string_view gpu_type) { return core::ascii_lower(gpu_type); }

bool needs_price(const Charge& c) {
  return c.currency.empty() && (c.gpu_hours > 0 || resource_of(c));
}

core::Result<bool> price_usage(Charge& c, const RateCard& card) {
  const RateCard::Rate* rate = nullptr;
  double quantity = c.gpu_hours;
  if (const Resource* r = resource_of(c)) {
    if (r->rate == &RateCard::storage && !card.storage_classes.empty()) {
      if (auto it = card.storage_classes.find(rate_key(c.sku_id)); it != card.storage_classes.end())
        rate = &it->second;
    } else if (card.*(r->rate)) {
      rate = &*(card.*(r->rate));
    }
    quantity = *c.pricing_quantity;
  } else if (c.sku_id.empty()) {
    if (card.untyped) rate = &*card.untyped;
  } else if (auto it = card.gpus.find(rate_key(c.sku_id)); it != card.gpus.end()) {
    rate = &it->second;
  }
  if (!rate) return false;
  // Quantities are doubles; long double keeps the product exact to well below a nano-unit for any
  // cost a row can hold (|cost| < 9.2e9 units). Past that llroundl has no answer (its result is
  // unspecified), so such a row is refused, never wrapped round into some other amount.
  const long double nanos = static_cast<long double>(rate->nanos_per_unit) * quantity;
  if (!(nanos > -0x1p63L && nanos < 0x1p63L)) {
    const Resource* r = resource_of(c);
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%.6g %s at %.9g %s per %s (%s) cost %.6Lg %s, beyond what a ledger row holds "
                  "(9.2e9 %s); not a reading: fix the quantity, or the rate",
                  quantity, r ? std::string(r->unit).c_str() : "GPU-hours",
                  static_cast<double>(rate->nanos_per_unit) / 1e9, card.currency.c_str(),
                  r ? r->per : "GPU-hour", rate->where.c_str(), nanos / 1e9L, card.currency.c_str(),
                  card.currency.c_str());
    return core::make_error(core::ErrorCode::kInvalidInput, buf);
  }
  c.billed = c.effective = c.list = static_cast<std::int64_t>(std::llroundl(nanos));
  c.currency = card.currency;
  c.pricing_category = "Standard";
  return true;
}

void Unpriced::add(const Charge& c, const RateCard& card) {
  if (const Resource* r = resource_of(c)) {
    if (r->rate == &RateCard::storage && !card.storage_classes.empty())
      storage_classes.insert(rate_key(c.sku_id));
    else
      resources.insert(r->key);
  } else {
    gpu_types.insert(c.sku_id);
  }
}

std::string unpriced_message(const Unpriced& missing, const RateCard& card) {
  std::string names, todo;
  const auto& types = missing.gpu_types;
  std::size_t count = 0;
  if (!types.empty()) {
    std::string example;
    for (const auto& t : types) {
      names += (names.empty() ? "" : ", ") + (t.empty() ? std::string("(untyped)") : t);
      if (example.empty() && !t.empty())
        example = "`" + rate_key(t) + ": <price>" + card.currency + "/h` under `gpus:`";
    }
    if (example.empty())
      example = "`untyped: <price>" + card.currency + "/h`";
    else if (types.count(""))
      example += " (and `untyped:` for GPUs without a type)";
    names = "GPU type" + std::string(types.size() > 1 ? "s " : " ") + names;
    todo = example;
    count += types.size();
  }
  for (const auto& r : kResources) {
    if (!missing.resources.count(r.key)) continue;
    names += (names.empty() ? "" : ", ") + std::string(r.what);
    todo += (todo.empty() ? "`" : ", `") + std::string(r.key) + ": <price>" + card.currency + "/" +
            r.per + "`";
    ++count;
  }
  if (!missing.storage_classes.empty()) {
    std::string classes, example;
    for (const auto& k : missing.storage_classes) {
      classes += (classes.empty() ? "" : ", ") + (k.empty() ? std::string("(no class)") : k);
      if (example.empty() && !k.empty())
        example = "`" + k + ": <price>" + card.currency + "/GiB-month` under `storage:`";
    }
    if (example.empty())
      example = "one rate for every class, `storage: <price>" + card.currency +
                "/GiB-month` (a volume without a class "
                "has no class rate)";
    names += (names.empty() ? "" : ", ") + std::string("storage class") +
             (missing.storage_classes.size() > 1 ? "es " : " ") + classes;
    todo += (todo.empty() ? "" : ", ") + example;
    count += missing.storage_classes.size();
  }
  return "no rate for " + names + " in " + card.source + ": add " + (count > 1 ? "them" : "it") +
         " as " + todo + "; nothing was loaded, since a row without its price would count as free";
}

}  // namespace aicost::ledger
