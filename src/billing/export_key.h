// What a delivery is of, gathered row by row while it loads: the key under which a restating
// delivery replaces an earlier one (ingest.cc, Store::restate).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aicost/ledger/charge.h"

namespace aicost::billing {

// What a delivery is of: the reader's format, providers, billing accounts and the export's name.
struct ExportKey {
  std::set<std::string> providers, accounts;
  std::set<ledger::UnixSeconds> periods;
  // OpenShift's: each day and report (the rows' resource type) it holds.
  std::set<std::pair<ledger::Day, std::string>> slices;
  void add(const ledger::Charge& c) {
    if (last_provider_ != c.provider) providers.insert(last_provider_ = c.provider);
    if (last_account_ != c.billing_account_id)
      accounts.insert(last_account_ = c.billing_account_id);
    if (last_period_ != c.billing_period_start)
      periods.insert(last_period_ = c.billing_period_start);
    if (c.provider == kOpenShift) {
      const ledger::Day day = ledger::day_of(c.period_start);
      if (day != last_slice_.first || c.resource_type != last_slice_.second) {
        last_slice_ = {day, c.resource_type};
        slices.insert(last_slice_);
      }
    }
  }
  // The days of `slices`, as YYYY-MM-DD.
  std::vector<std::string> days() const {
    std::set<ledger::Day> d;
    for (const auto& s : slices) d.insert(s.first);
    std::vector<std::string> out;
    for (auto day : d) out.push_back(ledger::day_text(day));
    return out;
  }
  static constexpr std::string_view kOpenShift = "OpenShift";
  std::string text(const std::string& format, const std::string& export_name) const {
    auto join = [](const std::set<std::string>& s) {
      std::string out;
      for (const auto& v : s) out += (out.empty() ? "" : "+") + v;
      return out;
    };
    return format + "|" + join(providers) + "|" + join(accounts) + "|" + export_name;
  }

 private:
  std::string last_provider_ = "\x01", last_account_ = "\x01";
  ledger::UnixSeconds last_period_ = -1;
  std::pair<ledger::Day, std::string> last_slice_{-1, "\x01"};
};

}  // namespace aicost::billing
