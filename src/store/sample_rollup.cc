#include "sample_rollup.h"

namespace aicost::store {

void SampleRollup::add(std::span<const ledger::GpuSample> samples) {
  for (const auto& s : samples) {
    const ledger::UnixSeconds hour = s.time - ((s.time % 3600) + 3600) % 3600;
    auto& h = hours_[{hour, s.host, s.gpu, static_cast<int>(s.metric)}];
    h.first += s.value;
    ++h.second;
  }
}

std::vector<ledger::GpuHour> SampleRollup::rows() const {
  std::vector<ledger::GpuHour> out;
  out.reserve(hours_.size());
  for (const auto& [k, v] : hours_)
    out.push_back({std::get<1>(k), std::get<2>(k), std::get<0>(k),
                   static_cast<ledger::GpuMetric>(std::get<3>(k)), v.first, v.second});
  return out;
}

}  // namespace aicost::store
