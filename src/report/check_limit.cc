// A check cut to its largest waste findings (`ledger check --limit`, `aicost serve`'s ?limit=):
// governance_report.h.
#include <fmt/format.h>

#include <map>

#include "aicost/report/governance_report.h"

namespace aicost::report {

governance::CheckResult largest_waste(const governance::CheckResult& r, std::size_t limit) {
  governance::CheckResult out = r;
  if (limit == 0 || out.waste.size() <= limit) return out;
  // Summed per currency in the order of the list (largest first), so the figure is the same
  // wherever it is computed.
  std::map<std::string, double> saving;
  for (auto w = out.waste.begin() + static_cast<std::ptrdiff_t>(limit); w != out.waste.end(); ++w)
    saving[w->finding.currency] += w->finding.monthly_saving;
  std::string sums;
  for (const auto& [currency, amount] : saving)
    sums += fmt::format("{}{:.2f} {}", sums.empty() ? "" : ", ", amount, currency);
  out.warnings.push_back(fmt::format(
      "waste: the largest {} of {} findings are listed (limit {}); the other {} save {} a month "
      "together",
      limit, out.waste.size(), limit, out.waste.size() - limit, sums));
  out.waste.resize(limit);
  return out;
}

}  // namespace aicost::report
