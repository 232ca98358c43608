// Prices for usage that comes without a bill (Slurm accounting): a rate per GPU-hour for each GPU
// type, in one currency. Readers of such usage hand out rows with GPU-hours, the GPU type in
// `sku_id` ("" when the scheduler named none) and no currency; `price_usage` gives them money.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "aicost/core/result.h"
#include "aicost/ledger/charge.h"

namespace aicost::ledger {

struct RateCard {
  std::string source;    // the file, for messages ("rates.yaml")
  std::string currency;  // ISO 4217, one for the whole card
  struct Rate {
    std::int64_t nanos_per_gpu_hour = 0;  // exact (core/amount.h)
    std::string where;                    // "rates.yaml:4", for messages
    std::string basis;                    // "rate card" | "owned TCO (server dgx-h100, 70 % busy)"
  };
  std::map<std::string, Rate> gpus;  // by GPU type as the scheduler names it, lower case ("h100")
  // The rate of GPUs the scheduler gives no type (AllocTRES gres/gpu=8 alone); never used for a
  // type the card does not list.
  std::optional<Rate> untyped;
};

// The GPU type as a card keys it: lower case ("H100" -> "h100").
std::string rate_key(std::string_view gpu_type);

// Whether a row is usage still to be priced: GPU-hours and no currency.
bool needs_price(const Charge& c);

// Prices one row: billed = effective = list = rate x GPU-hours, rounded to the nano-unit (half
// away from zero), in the card's currency. false (the row untouched) when the card has no rate
// for the row's GPU type; the caller names every such type at the end (unpriced_message).
bool price_usage(Charge& c, const RateCard& card);

// "no rate for GPU types a100, (untyped) in rates.yaml: add them as `a100: 1.20USD/h` under `gpus:`
// (or `untyped:`)".
std::string unpriced_message(const std::set<std::string>& types, const RateCard& card);

}  // namespace aicost::ledger
