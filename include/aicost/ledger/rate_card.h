// Prices for usage that comes without a bill (Slurm accounting, OpenShift/koku usage reports): a
// rate per GPU-hour for each GPU type, and per CPU core-hour, memory GiB-hour and storage
// GiB-month, all in one currency. Readers of such usage hand out rows with no currency and the
// quantity to price: GPU rows carry GPU-hours and the GPU type in `sku_id` ("" when the scheduler
// named none); CPU, memory and storage rows carry `pricing_quantity` in the unit `pricing_unit`
// names (kCoreHours, kGibHours, kGibMonths). `price_usage` gives them money.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "aicost/core/result.h"
#include "aicost/ledger/charge.h"

namespace aicost::ledger {

// The pricing units of unpriced CPU, memory and storage rows. A GiB is 2^30 bytes; a GiB-month is
// a GiB held for a whole calendar month (the month of the row's start), as koku and the clouds'
// block storage count it (docs/LEDGER.md, "Usage without a bill").
inline constexpr std::string_view kCoreHours = "Core-Hours";
inline constexpr std::string_view kGibHours = "GiB-Hours";
inline constexpr std::string_view kGibMonths = "GiB-Months";
inline constexpr std::string_view kVmHours =
    "VM-Hours";  // an OpenShift Virtualization VM up an hour

struct RateCard {
  std::string source;    // the file, for messages ("rates.yaml")
  std::string currency;  // ISO 4217, one for the whole card
  struct Rate {
    // Exact (core/amount.h), per the unit of what it prices: a GPU-hour (gpus, untyped), a
    // CPU core-hour (cpu), a GiB-hour of memory (memory), a GiB-month of storage (storage).
    std::int64_t nanos_per_unit = 0;
    std::string where;  // "rates.yaml:4", for messages
    std::string basis;  // "rate card" | "owned TCO (server dgx-h100, 70 % busy)"
  };
  std::map<std::string, Rate> gpus;  // by GPU type as the scheduler names it, lower case ("h100")
  // The rate of GPUs the scheduler gives no type (AllocTRES gres/gpu=8 alone); never used for a
  // type the card does not list.
  std::optional<Rate> untyped;
  std::optional<Rate> cpu;      // per CPU core-hour
  std::optional<Rate> memory;   // per GiB-hour
  std::optional<Rate> storage;  // per GiB-month, of every storage class
  std::optional<Rate> vm;       // per VM-hour (OpenShift Virtualization)
  // Per GiB-month by storage class (a volume row's sku_id, lower case: "gp3-csi"), when the card
  // prices classes apart; then a class it does not list has no rate (`storage` is unset).
  std::map<std::string, Rate> storage_classes;
};

// The GPU type as a card keys it: lower case ("H100" -> "h100").
std::string rate_key(std::string_view gpu_type);

// Whether a row is usage still to be priced: no currency, and GPU-hours or a CPU, memory or
// storage quantity (its pricing_unit one of the units above).
bool needs_price(const Charge& c);

// Prices one row: billed = effective = list = rate x quantity (GPU-hours, or pricing_quantity),
// rounded to the nano-unit (half away from zero), in the card's currency. false (the row
// untouched) when the card has no rate for it; the caller names every such rate at the end
// (Unpriced, unpriced_message). An error (kInvalidInput, the row untouched) when the cost is not
// a number or lies beyond what a ledger row holds (|cost| < 2^63 nano-units, about 9.2e9 units
// of the currency): an absurd quantity, which the caller refuses with the row's place.
core::Result<bool> price_usage(Charge& c, const RateCard& card);

// The rates a file needed and the card lacked.
struct Unpriced {
  std::set<std::string> gpu_types;  // "" for untyped GPUs
  std::set<std::string> resources;  // "cpu", "memory", "storage"
  std::set<std::string>
      storage_classes;  // when the card prices classes apart ("" for a volume without one)
  void add(const Charge& c, const RateCard& card);  // a row price_usage could not price
  bool empty() const { return gpu_types.empty() && resources.empty() && storage_classes.empty(); }
};

// "no rate for GPU types a100, (untyped) in rates.yaml: add them as `a100: 1.20USD/h` under `gpus:`
// (or `untyped:`)", for the other kinds "no rate for CPU core-hours in rates.yaml: add
// `cpu: <price>USD/core-hour`", and for storage classes "no rate for storage classes gp2 in
// rates.yaml: add `gp2: <price>USD/GiB-month` under `storage:`".
std::string unpriced_message(const Unpriced& missing, const RateCard& card);

}  // namespace aicost::ledger
