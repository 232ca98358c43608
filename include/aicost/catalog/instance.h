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

struct StoragePrice {
  std::string id;  // "aws/s3-standard"
  std::string provider;
  std::string name;
  std::string tier;  // object | object-infrequent | archive | block | file | local
  core::UsdPerByteSecond price;
  std::string region;
  Provenance provenance;
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
