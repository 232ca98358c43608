// A check cut to its largest waste findings (`ledger check --limit`, `aicost serve`'s ?limit=):
// governance_report.h.
#include <fmt/format.h>

#include <map>

#include "aicost/report/governance_report.h"

namespace aicost::report {

std::string waste_saving_from(const governance::CheckResult& r, std::size_t from) {
  std::map<std::string, double> saving;
  for (std::size_t i = from; i < r.waste.size(); ++i)
    saving[r.waste[i].finding.currency] += r.waste[i].finding.monthly_saving;
  std::string sums;
  for (const auto& [currency, amount] : saving)
    sums += fmt::format("{}{:.2f} {}", sums.empty() ? "" : ", ", amount, currency);
  return sums;
}

governance::CheckResult largest_waste(const governance::CheckResult& r, std::size_t limit) {
  governance::CheckResult out = r;
  if (limit == 0 || out.waste.size() <= limit) return out;
  out.warnings.push_back(fmt::format(
      "waste: the largest {} of {} findings are listed (limit {}); the other {} save {} a month "
      "together",
      limit, out.waste.size(), limit, out.waste.size() - limit, waste_saving_from(out, limit)));
  out.waste.resize(limit);
  return out;
}

}  // namespace aicost::report
