#include "aicost/catalog/precision.h"

#include "aicost/catalog/catalog.h"
#include "aicost/catalog/instance.h"
#include "aicost/catalog/model_spec.h"

namespace aicost::catalog {

const char* to_string(Precision p) {
  switch (p) {
    case Precision::kFp32: return "fp32";
    case Precision::kTf32: return "tf32";
    case Precision::kBf16: return "bf16";
    case Precision::kFp16: return "fp16";
    case Precision::kFp8: return "fp8";
    case Precision::kInt8: return "int8";
    case Precision::kFp4: return "fp4";
  }
  return "?";
}

std::optional<Precision> precision_from_string(std::string_view name) {
  const std::string n = normalize_name(name);
  for (int i = 0; i < kPrecisionCount; ++i) {
    const auto p = static_cast<Precision>(i);
    if (n == to_string(p)) return p;
  }
  return std::nullopt;
}

double bytes_per_element(Precision p) {
  switch (p) {
    case Precision::kFp32:
    case Precision::kTf32: return 4;
    case Precision::kBf16:
    case Precision::kFp16: return 2;
    case Precision::kFp8:
    case Precision::kInt8: return 1;
    case Precision::kFp4: return 0.5;
  }
  return 2;
}

const char* to_string(PricingMode m) {
  switch (m) {
    case PricingMode::kOnDemand: return "on-demand";
    case PricingMode::kSpot: return "spot";
    case PricingMode::kReserved1y: return "reserved-1y";
    case PricingMode::kReserved3y: return "reserved-3y";
  }
  return "?";
}

std::optional<PricingMode> pricing_mode_from_string(std::string_view name) {
  const std::string n = normalize_name(name);
  for (int i = 0; i < kPricingModeCount; ++i) {
    const auto m = static_cast<PricingMode>(i);
    if (n == to_string(m)) return m;
  }
  if (n == "ondemand") return PricingMode::kOnDemand;
  return std::nullopt;
}

const char* to_string(Activation a) {
  switch (a) {
    case Activation::kGelu: return "gelu";
    case Activation::kSwiglu: return "swiglu";
    case Activation::kSquaredRelu: return "squared-relu";
  }
  return "?";
}

}  // namespace aicost::catalog
