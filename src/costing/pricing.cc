// Prices of a GPU-second: a plain rate from the plan, or a catalogued instance under a mode.
#include "aicost/catalog/catalog.h"
#include "aicost/core/text.h"
#include "aicost/costing/cost_inputs.h"

namespace aicost::costing {

ComputePricing gpu_hour_pricing(core::UsdPerSecond per_gpu) {
  ComputePricing out;
  out.per_gpu = per_gpu;
  out.basis = core::sprintf("%.2f USD/GPU-h (plan)", core::per_hour(per_gpu));
  return out;
}

ComputePricing instance_pricing(const catalog::Instance& instance, catalog::PricingMode mode) {
  ComputePricing out;
  out.mode = mode;
  out.provider = catalog::normalize_name(instance.provider);
  out.instance = instance.id;
  if (mode == catalog::PricingMode::kReserved1y) out.term = core::Seconds(core::kSecondsPerYear);
  if (mode == catalog::PricingMode::kReserved3y)
    out.term = core::Seconds(3 * core::kSecondsPerYear);
  const core::UsdPerSecond price = instance.price(mode).value_or(core::UsdPerSecond(0));
  out.per_gpu = price / instance.gpus;
  out.basis =
      core::sprintf("%s %s %.2f USD/h", instance.id.c_str(), catalog::to_string(mode),
                    core::per_hour(price)) +
      (instance.gpus == 1 ? std::string(" per GPU") : core::sprintf(" / %d GPUs", instance.gpus));
  return out;
}

const char* mode_name(const ComputePricing& pricing) {
  return pricing.owned ? "owned" : catalog::to_string(pricing.mode);
}

ComputePricing owned_pricing(OwnedPricing owned, const catalog::Instance* rented) {
  ComputePricing out;
  if (rented != nullptr) {
    out.provider = catalog::normalize_name(rented->provider);
    out.instance = rented->id;
  }
  out.per_gpu = owned.rate.per_gpu;
  const auto& in = owned.inputs;
  out.basis = core::sprintf("owned %s %.2f USD/GPU-h at %.0f %% utilisation over %.3g y",
                            in.server.c_str(), core::per_hour(owned.rate.per_gpu),
                            100 * in.utilisation, in.life.value() / core::kSecondsPerYear);
  out.owned = std::move(owned);
  return out;
}

}  // namespace aicost::costing
