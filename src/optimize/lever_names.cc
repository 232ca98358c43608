#include "aicost/optimize/lever_names.h"

#include <algorithm>

#include "aicost/governance/waste.h"
#include "aicost/optimize/lever.h"

namespace aicost::optimize {

std::vector<std::string> lever_names() {
  std::vector<std::string> out;
  const auto add = [&](const std::string& id) {
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  };
  for (const auto& l : training_levers()) add(l.id);
  for (const auto& l : serving_levers()) add(l.id);
  // The ledger levers (ledger_levers.h): their ids are fixed strings there.
  for (const char* id : {"commitment", "idle-schedule", "rightsize"}) add(id);
  using governance::WasteKind;
  for (auto k : {WasteKind::kIdleGpu, WasteKind::kHungGpu, WasteKind::kExpiredDevResource,
                 WasteKind::kUntaggedSpend, WasteKind::kStorageGrowth, WasteKind::kLogRetention,
                 WasteKind::kDuplicateStorage, WasteKind::kUnusedCommitment,
                 WasteKind::kLowUtilisationFleet})
    add(std::string("waste-") + governance::waste_kind_name(k));
  return out;
}

}  // namespace aicost::optimize
