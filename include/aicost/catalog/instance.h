// Cloud instances, their prices per pricing mode, and storage/network unit prices.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aicost/catalog/provenance.h"
#include "aicost/core/quantity.h"

namespace aicost::catalog {

enum class PricingMode { kOnDemand, kSpot, kReserved1y, kReserved3y };
inline constexpr int kPricingModeCount = 4;

const char* to_string(PricingMode m);  // "on-demand", "spot", "reserved-1y", "reserved-3y"
std::optional<PricingMode> pricing_mode_from_string(std::string_view name);

struct Instance {
  std::string id;  // "aws/p5.48xlarge"
  std::string name;
  std::string provider;
  std::string gpu;  // GpuSpec id
  int gpus = 0;
  std::string region;
  // Price per instance-hour (all its GPUs), stored per second; 0 where unpublished.
  std::array<core::UsdPerSecond, kPricingModeCount> prices{};
  Provenance provenance;

  std::optional<core::UsdPerSecond> price(PricingMode m) const {
    const auto p = prices[static_cast<int>(m)];
    if (p.value() <= 0) return std::nullopt;
    return p;
  }
};

// What a storage tier charges besides its price, and how fast it feeds readers
// (data/prices.yaml; each figure has its own source in `terms_source` / `read_source`).
struct StoragePrice {
  std::string id;  // "aws/s3-standard"
  std::string provider;
  std::string name;
  std::string tier;  // object | object-infrequent | archive | block | file | local
  core::UsdPerByteSecond price;
  std::string region;
  Provenance provenance;
  // Per byte read back (infrequent and archive tiers); 0: none.
  core::UsdPerByte retrieval_price;
  // Each object is billed at least this long, deleted earlier or not. nullopt: not known (an
  // `object-infrequent` or `archive` tier whose data gives none); hot tiers have none (0).
  std::optional<core::Seconds> min_storage_duration;
  // Before an archived object can be read (S3 Glacier's restore); 0: readable at once.
  core::Seconds restore_time{0};
  std::string terms_source;  // of retrieval_price, min_storage_duration, restore_time
  // Read throughput: what one node pulls from the tier (object storage, a node's own volume), and
  // what each TiB stored adds (parallel file systems provisioned per TiB). 0: not known.
  core::BytesPerSecond read_per_node;
  core::BytesPerSecond read_per_tib;
  std::string read_source;
  bool read_known() const { return read_per_node.value() > 0 || read_per_tib.value() > 0; }
};

struct NetworkPrice {
  std::string id;  // "aws/egress-internet-first-10tb"
  std::string provider;
  std::string name;
  std::string kind;  // internet-egress | inter-region | inter-zone
  core::UsdPerByte price;
  std::string region;
  Provenance provenance;
};

}  // namespace aicost::catalog
