#include "aicost/report/commitments_report.h"

#include <fmt/format.h>

#include "aicost/core/amount.h"
#include "aicost/report/table.h"
#include "json.h"

namespace aicost::report {
namespace {

// "2025-12-01T00:00:00Z".
std::string utc(ledger::UnixSeconds t) {
  const auto day = ledger::day_of(t);
  const auto s = t - static_cast<ledger::UnixSeconds>(day) * 86400;
  return fmt::format("{}T{:02}:{:02}:{:02}Z", ledger::day_text(day), s / 3600, s / 60 % 60, s % 60);
}

std::string quantity_text(double q) { return fmt::format("{}", q); }

}  // namespace

std::string render_commitments(const std::vector<ledger::ContractCommitment>& terms, Format f) {
  if (f == Format::kJson) {
    Json j = Json::array();
    for (const auto& c : terms) {
      j.push_back({{"contract_id", c.contract_id},
                   {"commitment_id", c.commitment_id},
                   {"category", c.category},
                   {"type", c.type},
                   {"description", c.description},
                   {"currency", c.currency},
                   {"cost", c.cost ? Json(core::format_amount_exact(*c.cost)) : Json(nullptr)},
                   {"quantity", c.quantity ? Json(*c.quantity) : Json(nullptr)},
                   {"unit", c.unit},
                   {"commitment_start", utc(c.commitment_start)},
                   {"commitment_end", utc(c.commitment_end)},
                   {"contract_start", utc(c.contract_start)},
                   {"contract_end", utc(c.contract_end)}});
    }
    return json_text(j) + "\n";
  }
  Table t;
  t.title =
      terms.empty()
          ? "No contract commitments loaded; add a FOCUS 1.3 Contract Commitment file with `aicost "
            "ledger ingest FILE`"
          : "Contract commitments (FOCUS 1.3)";
  t.header = {"contract", "commitment", "category", "type", "currency",
              "cost",     "quantity",   "unit",     "from", "to"};
  t.right_align = {false, false, false, false, false, true, true, false, false, false};
  const bool people = f == Format::kTable || f == Format::kMarkdown;
  for (const auto& c : terms) {
    const std::string cost = !c.cost  ? ""
                             : people ? core::format_amount(*c.cost, 2)
                                      : core::format_amount_exact(*c.cost);
    t.rows.push_back({c.contract_id, c.commitment_id, c.category, c.type, c.currency, cost,
                      c.quantity ? quantity_text(*c.quantity) : "", c.unit, utc(c.commitment_start),
                      utc(c.commitment_end)});
  }
  return render(t, f);
}

}  // namespace aicost::report
