// The NVIDIA GPU report of koku's metrics operator (koku-metrics-operator, internal/collector/
// types.go nvidiaGpuRow, from v4.3.0; MIG columns from v4.4.0): one row per hour, pod and GPU (or
// MIG instance) the pod ran on: gpu_uuid, gpu_model_name, gpu_pod_uptime (seconds: the operator
// counts a minute for each minute's DCGM sample while the pod was Running), gpu_max_slices,
// mig_instance_id, mig_profile. A row becomes a GPU row of GPU-hours, unpriced for the rate card's
// rate of its GPU model (ledger/rate_card.h).
//
// A MIG instance holds a share of its GPU: the slices of its profile ("3g.20gb": 3) over the GPU's
// slices (gpu_max_slices: 7 on an A100), as koku's GPU cost model charges it
// (koku/masu/database/trino_sql/openshift/cost_model/monthly_cost_gpu.sql: rate x uptime x
// mig_slice_count / gpu_max_slices; koku/masu/util/ocp/ocp_post_processor.py parse_mig_profile).
// Where the share cannot be told (no gpu_max_slices, a profile that is not "<n>g.<m>gb"), the row
// counts the whole GPU, with a warning: koku then treats the GPU as dedicated too.
#include <charconv>
#include <cmath>
#include <cstdio>

#include "aicost/core/text.h"
#include "ocp_common.h"

namespace aicost::billing::ocp {
namespace {

// The compute slices of a MIG profile "3g.20gb" (koku's parse_mig_profile: "<n>g.<m>gb"); 0 when
// it is not one.
// More MIG slices than any GPU splits into (7 today): a larger gpu_max_slices is not a count.
constexpr double kMostSlices = 64;

int profile_slices(std::string_view profile) {
  const auto dot = profile.find('.');
  if (dot == std::string_view::npos || dot < 2 || profile[dot - 1] != 'g' ||
      profile.substr(profile.size() - 2) != "gb")
    return 0;
  int n = 0;
  const auto [end, ec] = std::from_chars(profile.data(), profile.data() + dot - 1, n);
  return ec == std::errc() && end == profile.data() + dot - 1 && n > 0 ? n : 0;
}

class GpuPart final : public CsvDialect {
 public:
  explicit GpuPart(Labels& labels) : labels_(labels) {}

  core::Status header(const std::vector<std::string_view>& names, IssueLog& log) override {
    Columns cols(names);
    start_ = cols.find({"interval_start"});
    end_ = cols.find({"interval_end"});
    node_ = cols.find({"node"});
    namespace_ = cols.find({"namespace"});
    pod_ = cols.find({"pod"});
    uuid_ = cols.find({"gpu_uuid"});
    model_ = cols.find({"gpu_model_name"});
    uptime_ = cols.find({"gpu_pod_uptime"});
    max_slices_ = cols.find({"gpu_max_slices"});
    mig_id_ = cols.find({"mig_instance_id"});
    profile_ = cols.find({"mig_profile"});
    for (const char* c : {"report_period_start", "report_period_end", "gpu_vendor_name",
                          "gpu_memory_capacity_mib", "gpu_pod_utilization", "mig_strategy"})
      cols.find({c});
    std::string missing;
    for (const auto& [i, name] : {std::pair{start_, "interval_start"},
                                  {end_, "interval_end"},
                                  {namespace_, "namespace"},
                                  {pod_, "pod"},
                                  {model_, "gpu_model_name"},
                                  {uptime_, "gpu_pod_uptime"}})
      if (i < 0) missing += std::string(missing.empty() ? "" : ", ") + name;
    if (!missing.empty())
      return core::make_error(
          core::ErrorCode::kInvalidInput,
          "not an OpenShift GPU usage report aicost can read: no " + missing + " column");
    return cols.check_duplicates(log);
  }

  bool row(const CsvRecord& r, ledger::Charge& c, IssueLog& log, std::int64_t&) override {
    c.line = r.line;
    absorbed_ = false;
    const auto when = interval(r, start_, end_, log);
    const auto uptime = when ? number(r, uptime_, "gpu_pod_uptime", log) : std::nullopt;
    if (!uptime) return false;
    // A GPU the pod held for no second of the hour (uptime 0 or empty) used nothing to charge:
    // the row is taken, without a charge (a charge of 0 GPU-hours would have no price either).
    if (*uptime == 0) {
      absorbed_ = true;
      return false;
    }
    const auto [start, end] = *when;
    // The operator sums a 60 s sample per minute of the hour.
    if (!uptime_fits(r, *uptime, start, end, "gpu_pod_uptime", log)) return false;
    const std::string profile = text_cell(r, profile_);
    double share = 1;
    int slices = 0, of = 0;
    if (!profile.empty()) {
      slices = profile_slices(profile);
      const auto max = number(r, max_slices_, "gpu_max_slices", log, "slices");
      if (!max) return false;
      // A slice count is a whole number a GPU can hold (7 on an A100 or H100); checked before
      // the cast, as a double past INT_MAX has no int.
      const bool whole = *max >= 1 && *max <= kMostSlices && std::floor(*max) == *max;
      of = whole ? static_cast<int>(*max) : 0;
      if (slices == 0 || of == 0) {
        log.warn(r.line, slices == 0 ? "mig_profile" : "gpu_max_slices",
                 "the MIG instance's share of its GPU is unknown (profile " + quote_cell(profile) +
                     (*max == 0 ? ", no gpu_max_slices"
                      : whole   ? ""
                                : ", gpu_max_slices " + core::sprintf("%g", *max) +
                                    " is not a slice count") +
                     "); the row counts the whole GPU");
        slices = of = 0;
      } else if (slices > of) {
        log.error(r.line, "mig_profile",
                  "the MIG profile " + quote_cell(profile) + " holds more slices than its GPU's " +
                      std::to_string(of));
        return false;
      } else {
        share = static_cast<double>(slices) / of;
      }
    }
    stamp_usage(r, start, end, namespace_, c);
    const std::string node = text_cell(r, node_), pod = text_cell(r, pod_),
                      model = text_cell(r, model_);
    // The last part of a resource id is the host the waste scan joins with dcgm-exporter's
    // Hostname.
    c.resource_id = node.empty() ? pod : pod + "/" + node;
    c.resource_name = pod;
    c.resource_type = "Pod GPU";
    c.sku_id = model;  // the GPU type the rate card prices ("" untyped)
    c.gpu_hours = *uptime / 3600.0 * share;
    c.pricing_unit = c.consumed_unit = "GPU-Hours";
    c.pricing_quantity = c.consumed_quantity = c.gpu_hours;
    // Whole, not cut to a buffer: a cut could fall inside a UTF-8 character of the model's name.
    c.charge_description =
        of > 0 ? core::sprintf("%s MIG %s (%d of %d slices): %.6g GPU-hours for %.6g s up",
                               model.c_str(), profile.c_str(), slices, of, c.gpu_hours, *uptime)
               : core::sprintf("%s: %.6g GPU-hours for %.6g s up",
                               model.empty() ? "GPU" : model.c_str(), c.gpu_hours, *uptime);
    tag_cell(r, "namespace", namespace_, c);
    tag_cell(r, "pod", pod_, c);
    tag_cell(r, "node", node_, c);
    tag_cell(r, "gpu_uuid", uuid_, c);
    tag_cell(r, "gpu_type", model_, c);
    tag_cell(r, "mig_profile", profile_, c);
    tag_cell(r, "mig_instance", mig_id_, c);
    const ledger::Day day = ledger::day_of(start);
    labels_.apply(Labels::Of::kNamespace, cell(r, namespace_), day, c.tags);
    labels_.apply(Labels::Of::kNode, cell(r, node_), day, c.tags);
    return true;
  }

  bool absorbed() const override { return absorbed_; }
  std::string version() const override { return "ocp-gpu"; }
  std::string_view tags_column() const override { return "namespace_labels"; }

 private:
  const Labels& labels_;
  int start_ = -1, end_ = -1, node_ = -1, namespace_ = -1, pod_ = -1, uuid_ = -1, model_ = -1,
      uptime_ = -1;
  int max_slices_ = -1, mig_id_ = -1, profile_ = -1;
  bool absorbed_ = false;
};

}  // namespace

std::unique_ptr<CsvDialect> make_gpu_part(Labels& labels) {
  return std::make_unique<GpuPart>(labels);
}

}  // namespace aicost::billing::ocp
