// `ledger check`'s waste findings (governance/waste_scan.h) as ledger levers, each counted once:
// a finding about a host an idle schedule already stops, or a commitment the commitment lever
// already reports, is listed as no-saving with the lever that counts it; one `ledger check` counts
// in another finding (covered_by) is left out (docs/OPTIMIZE.md "Ledger").
#include <map>

#include "aicost/core/text.h"
#include "aicost/governance/waste.h"
#include "ledger_levers_internal.h"

namespace aicost::optimize::detail {

namespace {

struct KindAction {
  governance::WasteKind kind;
  const char* action;  // what to do with the subject
  RiskLevel risk;
  const char* risk_kind;
  const char* risk_why;
};

// The action and its risk per finding kind (judgements, stated with their reason).
const KindAction kActions[] = {
    {governance::WasteKind::kIdleGpu, "stop or release the idle GPUs", RiskLevel::kMedium,
     "availability", "a GPU idle in the telemetry may be held for work to come"},
    {governance::WasteKind::kHungGpu, "kill the hung job and restart it", RiskLevel::kLow,
     "recovery", "the job makes no progress: GPU_UTIL busy while the SMs idle"},
    {governance::WasteKind::kExpiredDevResource, "delete it or renew its TTL", RiskLevel::kMedium,
     "data-loss", "a dev resource past its TTL may hold work not saved elsewhere"},
    {governance::WasteKind::kUntaggedSpend, "tag it", RiskLevel::kLow, "attribution",
     "tagging changes no resource"},
    {governance::WasteKind::kStorageGrowth, "add a lifecycle rule", RiskLevel::kMedium, "data-loss",
     "expiring objects deletes them"},
    {governance::WasteKind::kLogRetention, "set a retention period", RiskLevel::kLow, "audit",
     "logs past the retention are deleted; check the audit minimum first (--guardrails "
     "min_retention)"},
    {governance::WasteKind::kDuplicateStorage, "delete the extra copies", RiskLevel::kMedium,
     "disaster-recovery", "a copy in another region may be a deliberate replica"},
    {governance::WasteKind::kUnusedCommitment, "move workloads onto it, or buy less at renewal",
     RiskLevel::kLow, "cost-commitment", "the commitment is paid either way"},
    {governance::WasteKind::kLowUtilisationFleet, "scale it down", RiskLevel::kMedium, "latency",
     "fewer replicas leave less room for a burst"},
};

std::string lever_id(governance::WasteKind k) {
  std::string id = std::string("waste-") + governance::waste_kind_name(k);
  for (auto& c : id)
    if (c == '_') c = '-';
  return id;
}

}  // namespace

void waste_levers(const std::vector<governance::WasteFinding>& findings, const LedgerBaseline& b,
                  const std::map<std::string, std::string>& counted, std::vector<LeverResult>& out,
                  std::vector<std::string>& warnings) {
  std::size_t nothing = 0;
  for (const auto& f : findings) {
    // `ledger check` counts this one in another finding, itself a lever here: leave it out; so
    // are findings that save nothing (untagged spend, a dev box that stopped charging), counted.
    if (!f.covered_by.empty()) continue;
    if (f.monthly_saving <= 0) {
      ++nothing;
      continue;
    }
    const KindAction* a = nullptr;
    for (const auto& k : kActions)
      if (k.kind == f.kind) a = &k;
    if (!a) continue;
    LeverResult r;
    r.id = lever_id(f.kind);
    r.category = "ledger";
    r.subject = f.subject;
    r.change = {
        {"waste." + std::string(governance::waste_kind_name(f.kind)) + "." + f.subject, a->action}};
    r.notes.push_back(f.message);
    // One resource, one saving: a host or commitment another lever counts.
    const auto by = counted.find(f.subject);
    const auto by_host = counted.find(host_of(f.subject));
    const std::string other = by != counted.end()        ? by->second
                              : by_host != counted.end() ? by_host->second
                                                         : "";
    if (!other.empty()) {
      r.status = LeverStatus::kNoSaving;
      r.saving_usd = 0;
      r.why = "counted in " + other + " (one resource, one saving)";
      out.push_back(std::move(r));
      continue;
    }
    // waste.h prices a 30-day month; the ledger levers a 730-hour one.
    priced(r, f.monthly_saving * kHoursPerMonth / (24.0 * governance::kDaysPerMonth), b,
           f.currency);
    r.risk = {a->risk, {a->risk_kind}, a->risk_why};
    r.rollout.validation = std::string(a->action) + " for " + f.subject + " after asking its owner";
    r.rollout.metric = "the subject's cost in the next ledger check, and the finding gone";
    r.rollout.stop_loss = "restore it if its owner needed it";
    for (const auto& e : f.evidence) r.notes.push_back(e);
    out.push_back(std::move(r));
  }
  if (nothing > 0) {
    warnings.push_back(
        core::sprintf("%zu waste findings of `aicost ledger check` save nothing by themselves "
                      "(untagged spend, resources that stopped charging) and are not levers",
                      nothing));
  }
}

}  // namespace aicost::optimize::detail
