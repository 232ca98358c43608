// Waste detectors: idle and hung GPUs, dev/test resources past a TTL, untagged spend, storage
// growing too fast, logs kept beyond retention, duplicate datasets/checkpoints, unused commitments,
// and under-used inference fleets (reference/finops.md §9, §12 and §14.3, §14.7).
//
// Each detector is a pure function of typed rows that an adapter built from a ledger, a telemetry
// scrape or an object inventory; thread-safe. Amounts are `double` currency units (estimates, not
// ledger money). Every saving is per 30-day month (kDaysPerMonth) — not the 730-hour month used
// where a list rate becomes a monthly price — because the inputs are observed windows of days.
// Findings come back sorted as sort_findings sorts them. Inputs that cannot be judged (no samples,
// zero totals, non-positive windows) give no finding rather than an error.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aicost/ledger/charge.h"

namespace aicost::governance {

inline constexpr double kDaysPerMonth = 30;

enum class WasteKind {
  kIdleGpu,
  kHungGpu,
  kExpiredDevResource,
  kUntaggedSpend,
  kStorageGrowth,
  kLogRetention,
  kDuplicateStorage,
  kUnusedCommitment,
  kLowUtilisationFleet,
};

// "idle_gpu", "hung_gpu", "expired_dev_resource", "untagged_spend", "storage_growth",
// "log_retention", "duplicate_storage", "unused_commitment", "low_utilisation_fleet".
const char* waste_kind_name(WasteKind kind);

struct WasteFinding {
  WasteKind kind = WasteKind::kIdleGpu;
  std::string subject;  // what to fix: a host, a resource id, a tag key, a content key, a
                        // commitment, a fleet
  std::string currency;
  double monthly_saving =
      0;                // currency units per 30-day month if fixed; the rule is per detector below
  std::string message;  // one line a person reads, with the numbers
  std::vector<std::string> evidence;  // at most 10 lines quoting rows/samples, most telling first
  // "kind subject" of another finding whose fix also removes this one (an idle GPU on a dev box
  // past its TTL): this one's saving is then 0, so that savings add up without counting twice.
  std::string covered_by{};
};

// monthly_saving descending, then kind (enum order), then subject ascending; stable otherwise.
void sort_findings(std::vector<WasteFinding>& findings);

// ---- 1. Idle and hung GPUs ---------------------------------------------------------------------

// Telemetry of one GPU over one hour (DCGM exporter, §9). Activity fractions are hourly means,
// 0..1.
struct GpuActivityHour {
  std::string host, gpu;
  ledger::UnixSeconds hour = 0;            // start of the hour
  std::optional<double> sm_active;         // DCGM_FI_PROF_SM_ACTIVE
  std::optional<double> gr_engine_active;  // DCGM_FI_PROF_GR_ENGINE_ACTIVE
  std::optional<double> gpu_util;          // DCGM_FI_DEV_GPU_UTIL as a fraction
};

struct IdleGpuOptions {
  double idle_below = 0.05;      // an hour is idle when its activity is < this
  int min_hours = 4;             // consecutive idle hours a run needs to be reported (at least 1)
  double util_busy_above = 0.9;  // GPU_UTIL >= this while SM/engine activity is idle = a hung job
};

// Activity of an hour = sm_active, else gr_engine_active, else gpu_util (last: GPU_UTIL reads 100 %
// on a hung job); an hour with none of them is unknown and, like a missing hour, ends a run.
// Duplicate (host, gpu, hour) samples: the first in input order counts.
// A run: consecutive hours (each starts 3600 s after the previous) of one (host, gpu) with activity
// < idle_below, at least min_hours long. A run is hung when at least half its hours have gpu_util
// >= util_busy_above while the activity came from sm_active or gr_engine_active; otherwise idle.
// One finding per host and kind (kIdleGpu, kHungGpu), subject = host: its GPUs, idle GPU-hours,
// longest run; evidence = the runs, longest first.
// monthly_saving = run GPU-hours × the host's price per GPU-hour × 720 / H, where H = distinct
// hours the host's samples cover (any GPU, any metric): the idle share of the observed span
// extrapolated to 30 days. A host missing from `cost_per_gpu_hour_by_host` is still reported,
// saving 0, "no price".
std::vector<WasteFinding> idle_gpus(const std::vector<GpuActivityHour>& hours,
                                    const std::map<std::string, double>& cost_per_gpu_hour_by_host,
                                    const std::string& currency,
                                    const IdleGpuOptions& options = {});

// ---- 2. Dev/test resources past a TTL ----------------------------------------------------------

struct ResourceDays {
  std::string resource_id, resource_name, service, currency;
  std::map<std::string, std::string> tags;  // canonical keys (ledger::canonical_tag_key)
  ledger::Day first_day = 0, last_day = 0;  // first and last day with a charge
  double cost_last_30_days = 0;
  // The first day the caller looked at: a first_day on it means "on that day or earlier".
  std::optional<ledger::Day> seen_from;
};

struct TtlOptions {
  int ttl_days = 14;  // a dev resource may live this many days
  // The first of these keys present on a resource decides its environment.
  std::vector<std::string> env_keys = {"environment", "env", "stage"};
  // Values (compared case-insensitively) that make a resource dev/test.
  std::vector<std::string> dev_values = {"dev",     "development", "test",   "testing",
                                         "sandbox", "experiment",  "staging"};
  int still_charging_within_days = 2;  // "still charging": last_day >= as_of − this
};

// The tag that makes a resource dev/test: the first of o.env_keys among `tags`, when its value is
// one of o.dev_values (compared case-insensitively); nullptr when there is none.
const std::pair<const std::string, std::string>* dev_tag(
    const std::map<std::string, std::string>& tags, const TtlOptions& o);

// A dev resource (dev_tag) with first_day <= as_of − ttl_days and last_day >= as_of −
// still_charging_within_days. Subject = resource_id. monthly_saving = cost_last_30_days, or
// cost_last_30_days × 30 / L when its life L = last_day − first_day + 1 is under 30 days (a younger
// resource's monthly rate).
std::vector<WasteFinding> expired_dev_resources(const std::vector<ResourceDays>& resources,
                                                ledger::Day as_of, const TtlOptions& options = {});

// ---- 3. Untagged spend -------------------------------------------------------------------------

struct UntaggedSpend {
  std::string tag_key, currency;
  double untagged = 0,
         taggable = 0;  // over window_days: spend without the key, spend that could carry it
  int window_days = 30;
  std::vector<std::pair<std::string, double>>
      top_untagged;  // (resource or service, cost), biggest first
};

struct UntaggedOptions {
  double max_share = 0.05;  // untagged / taggable above this is a finding
};

// A finding per key with taggable > 0 and untagged / taggable > max_share; subject = tag key,
// evidence = top_untagged. monthly_saving = 0: untagged spend is unattributable, not waste by
// itself.
std::vector<WasteFinding> untagged_spend(const std::vector<UntaggedSpend>& spends,
                                         const UntaggedOptions& options = {});

// ---- 4. Storage growing faster than its limit --------------------------------------------------

struct StorageSeries {
  std::string scope, currency;
  std::vector<std::pair<ledger::Day, double>> daily_cost;  // storage cost per day, days ascending
};

struct StorageGrowthOptions {
  double max_monthly_growth = 0.10;  // allowed growth, fraction per 30 days
  int window_days = 28;              // the fit uses the last this many days of the series
};

// Least-squares line through the points of [last − window_days + 1, last] (last = the series' last
// day; missing days are left out, not read as zero; needs 2 distinct days). growth = slope × 30 /
// fitted value at the window's first point (no finding when that is <= 0). Finding when growth >
// max_monthly_growth; subject = scope. monthly_saving = (growth − max) × fitted(last) × 30: the
// part of next month's cost increase that is above the limit.
std::vector<WasteFinding> storage_growth(const std::vector<StorageSeries>& series,
                                         const StorageGrowthOptions& options = {});

// ---- 5. Logs kept beyond retention -------------------------------------------------------------

struct LogStorage {
  std::string resource_id, currency;
  std::vector<std::pair<ledger::Day, double>>
      stored_gb;                  // stored volume (GB) by day, days ascending
  double price_per_gb_month = 0;  // 0 = unknown
};

struct LogRetentionOptions {
  int retention_days = 30;  // how long the logs need to be kept
};

// When the volume never decreases from one sample to the next (nothing is ever deleted) and the
// series spans more than retention_days (last − first day), the data older than retention is about
// what was stored on day last − retention_days (the latest sample on or before it). Finding when
// that excess is > 0; subject = resource_id. monthly_saving = excess GB × price_per_gb_month.
// Any decrease means deletion happens: no finding.
std::vector<WasteFinding> log_retention(const std::vector<LogStorage>& logs,
                                        const LogRetentionOptions& options = {});

// ---- 6. Duplicate datasets and checkpoints -----------------------------------------------------

struct StoredObject {
  std::string resource_id, service, region, currency;
  std::string
      content_key;  // a dataset/checkpoint tag value or a name+size fingerprint; "" = unknown
  double stored_gb = 0;
  double monthly_cost = 0;
};

// Objects grouped by (content_key, currency), empty keys skipped, one object per resource_id (the
// first). A group of >= 2 copies is a finding, subject = content_key: keep the cheapest copy (ties:
// smallest resource_id); monthly_saving = the other copies' monthly_cost summed. Evidence lists the
// copies, most expensive first. The message names the regions when the copies span several, since a
// cross-region replica may be deliberate (disaster recovery).
std::vector<WasteFinding> duplicate_storage(const std::vector<StoredObject>& objects);

// ---- 7. Unused commitments ---------------------------------------------------------------------

struct CommitmentUse {
  std::string commitment_id, currency;
  // Over window_days: FOCUS CommitmentDiscountStatus "Used" / "Unused" cost.
  double used_cost = 0, unused_cost = 0;
  int window_days = 30;
};

struct CommitmentOptions {
  double min_unused_share = 0.05;  // unused / (used + unused) above this is a finding
};

// Subject = commitment_id; windows of <= 0 days are skipped. monthly_saving = unused_cost × 30 /
// window_days: paid anyway, recovered by moving workloads onto it or buying less at renewal.
std::vector<WasteFinding> unused_commitments(const std::vector<CommitmentUse>& uses,
                                             const CommitmentOptions& options = {});

// ---- 8. Under-used inference fleets ------------------------------------------------------------

struct FleetUse {
  std::string fleet, currency;
  int replicas = 0;
  double mean_activity = 0;  // SM_ACTIVE mean over the window, 0..1
  double peak_activity = 0;  // SM_ACTIVE peak over the window, 0..1
  double monthly_cost = 0;
};

struct FleetOptions {
  double low_below = 0.30;  // mean activity below this is a finding
  double target = 0.60;     // mean activity to right-size to
};

// Finding when replicas > 0 and mean_activity < low_below; subject = fleet. Right-sized replicas
// n = clamp(ceil(replicas × max(mean / target, peak)), 1, replicas): the mean at the target and the
// peak at 100 % on the fewer replicas. monthly_saving = monthly_cost × (1 − n / replicas); a fleet
// whose peak needs every replica is reported with saving 0 (autoscale rather than shrink).
std::vector<WasteFinding> low_utilisation_fleets(const std::vector<FleetUse>& fleets,
                                                 const FleetOptions& options = {});

}  // namespace aicost::governance
