// OpenShift (Kubernetes) usage reports as koku's metrics operator uploads them to Red Hat cost
// management (github.com/project-koku/koku, the CSVs of koku/masu/test/data/ocp/payload.tar.gz;
// github.com/project-koku/koku-metrics-operator, internal/collector/types.go): hourly rows per pod
// (CPU core-seconds and memory byte-seconds used, requested and limited), per persistent volume
// claim (capacity, request and usage byte-seconds), per pod and NVIDIA GPU (ocp_gpu.cc), and the
// labels of nodes and namespaces (ocp_labels.cc). They carry no prices: a pod row becomes a CPU
// row (core-hours) and a memory row (GiB-hours), a volume row a storage row (GiB-months), each
// unpriced for the ingest's rate card (ledger/rate_card.h). The header says which report a file is.
//
// What is charged is what the pod held: its effective usage, max(usage, request) per hour, as
// koku's own daily summary computes it (koku/masu/database/trino_sql/openshift/
// reporting_ocpusagelineitem_daily_summary.sql: coalesce(pod_effective_usage_cpu_core_seconds,
// greatest(usage, request)); memory the same, bytes x 2^-30 GiB), or the report's own
// pod_effective_usage_* where a newer operator writes it. A volume is charged for what was
// provisioned: max(capacity, request, usage) byte-seconds, in GiB-months of its calendar month
// (koku divides byte-seconds by 3600 x 24 x 2^30 x the month's days, the same file).
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "aicost/ledger/rate_card.h"
#include "ocp_common.h"

namespace aicost::billing {
namespace ocp {
namespace {

// A row's quantity per hour above these is not a reading: a million cores, a PiB of memory, an
// EiB of storage (the largest nodes hold a few hundred cores and a few TiB).
constexpr double kMaxCores = 1e6, kMaxMemoryGib = 1024.0 * 1024.0,
                 kMaxStorageGib = 1024.0 * 1024.0 * 1024.0;

int days_in_month(ledger::UnixSeconds t) {
  const ledger::UnixSeconds start = month_start(t);
  return static_cast<int>(month_start(start + 32 * 86400) - start) / 86400;
}

class UsagePart final : public CsvDialect {
 public:
  explicit UsagePart(Labels& labels) : labels_of_(labels) {}

  core::Status header(const std::vector<std::string_view>& names, IssueLog& log) override {
    Columns cols(names);
    storage_ = cols.has("persistentvolumeclaim_capacity_byte_seconds");
    start_ = cols.find({"interval_start"});
    end_ = cols.find({"interval_end"});
    cols.find({"report_period_start"});
    cols.find({"report_period_end"});
    namespace_ = cols.find({"namespace"});
    pod_ = cols.find({"pod"});
    node_ = cols.find({"node"});
    node_id_ = cols.find({"resource_id"});
    std::vector<std::pair<int*, const char*>> required{
        {&start_, "interval_start"}, {&end_, "interval_end"}, {&namespace_, "namespace"}};
    if (storage_) {
      claim_ = cols.find({"persistentvolumeclaim"});
      volume_ = cols.find({"persistentvolume"});
      class_ = cols.find({"storageclass"});
      capacity_ = cols.find({"persistentvolumeclaim_capacity_byte_seconds"});
      request_ = cols.find({"volume_request_storage_byte_seconds"});
      usage_ = cols.find({"persistentvolumeclaim_usage_byte_seconds"});
      labels_ = {cols.find({"persistentvolumeclaim_labels"}),
                 cols.find({"persistentvolume_labels"})};
      cols.find({"persistentvolumeclaim_capacity_bytes"});
      for (auto p : {std::pair{&claim_, "persistentvolumeclaim"},
                     {&capacity_, "persistentvolumeclaim_capacity_byte_seconds"},
                     {&request_, "volume_request_storage_byte_seconds"},
                     {&usage_, "persistentvolumeclaim_usage_byte_seconds"}})
        required.push_back(p);
    } else {
      usage_ = cols.find({"pod_usage_cpu_core_seconds"});
      request_ = cols.find({"pod_request_cpu_core_seconds"});
      effective_ = cols.find({"pod_effective_usage_cpu_core_seconds"});
      memory_usage_ = cols.find({"pod_usage_memory_byte_seconds"});
      memory_request_ = cols.find({"pod_request_memory_byte_seconds"});
      memory_effective_ = cols.find({"pod_effective_usage_memory_byte_seconds"});
      labels_ = {cols.find({"pod_labels"}), -1};
      for (const char* c : {"pod_limit_cpu_core_seconds", "pod_limit_memory_byte_seconds",
                            "node_capacity_cpu_cores", "node_capacity_cpu_core_seconds",
                            "node_capacity_memory_bytes", "node_capacity_memory_byte_seconds"})
        cols.find({c});
      for (auto p : {std::pair{&pod_, "pod"},
                     {&usage_, "pod_usage_cpu_core_seconds"},
                     {&request_, "pod_request_cpu_core_seconds"},
                     {&memory_usage_, "pod_usage_memory_byte_seconds"},
                     {&memory_request_, "pod_request_memory_byte_seconds"}})
        required.push_back(p);
    }
    std::string missing;
    for (const auto& [index, name] : required)
      if (*index < 0) missing += std::string(missing.empty() ? "" : ", ") + name;
    if (!missing.empty())
      return core::make_error(core::ErrorCode::kInvalidInput,
                              std::string("not an OpenShift ") + (storage_ ? "storage" : "pod") +
                                  " usage report aicost can read: no " + missing + " column");
    return cols.check_duplicates(log);
  }

  bool row(const CsvRecord& r, ledger::Charge& c, IssueLog& log, std::int64_t&) override {
    pending_ = false;
    c.line = r.line;
    const auto when = interval(r, start_, end_, log);
    if (!when) return false;
    const auto [start, end] = *when;
    const double hours = static_cast<double>(end - start) / 3600.0;
    c.period_start = start;
    c.period_end = end;
    c.billing_period_start =
        month_start(start);  // not report_period_start: koku's rows may lie past it
    c.provider = "OpenShift";
    c.service_name = "OpenShift";
    c.charge_category = "Usage";
    c.charge_frequency = "Usage-Based";
    c.sub_account_id = c.sub_account_name = text_cell(r, namespace_);
    tag_cell(r, "namespace", namespace_, c);
    tag_cell(r, "pod", pod_, c);
    tag_cell(r, "node", node_, c);
    tag_cell(r, "node_resource_id", node_id_, c);
    if (storage_) return volume(r, c, log, hours, start);

    const auto cpu = effective(r, {effective_, usage_, request_}, kCpuColumns, log);
    const auto memory =
        cpu ? effective(r, {memory_effective_, memory_usage_, memory_request_}, kMemoryColumns, log)
            : std::nullopt;
    if (!cpu || !memory) return false;
    const double cores = cpu->held / 3600.0, gib = memory->held / 3600.0 / kGib;
    if (!within(r, "pod_usage_cpu_core_seconds", cores, kMaxCores * hours, "core-hours", log) ||
        !within(r, "pod_usage_memory_byte_seconds", gib, kMaxMemoryGib * hours, "GiB-hours", log))
      return false;
    add_labels(cell(r, labels_.first), c.tags);
    shared_labels(r, c);
    c.service_category = "Compute";
    c.resource_id = text_cell(r, pod_);
    c.resource_name = c.resource_id;
    c.resource_type = "Pod";
    pending_memory_ = c;  // the same pod-hour, its memory
    c.sku_id = "cpu";
    c.pricing_unit = c.consumed_unit = std::string(ledger::kCoreHours);
    c.pricing_quantity = c.consumed_quantity = cores;
    c.charge_description = describe("CPU", cpu->held / 3600.0, cpu->usage / 3600.0,
                                    cpu->request / 3600.0, cpu->reported, "core-hours");
    ledger::Charge& m = pending_memory_;
    m.sku_id = "memory";
    m.pricing_unit = m.consumed_unit = std::string(ledger::kGibHours);
    m.pricing_quantity = m.consumed_quantity = gib;
    m.charge_description = describe("memory", gib, memory->usage / 3600.0 / kGib,
                                    memory->request / 3600.0 / kGib, memory->reported, "GiB-hours");
    pending_ = true;
    return true;
  }

  bool next(ledger::Charge& out) override {
    if (!pending_) return false;
    pending_ = false;
    std::swap(out, pending_memory_);
    return true;
  }

  std::string version() const override { return storage_ ? "ocp-storage" : "ocp-pod"; }
  std::string_view tags_column() const override {
    return storage_ ? "persistentvolumeclaim_labels" : "pod_labels";
  }

 private:
  struct Held {
    double held = 0, usage = 0, request = 0;  // seconds of a core, or byte-seconds
    bool reported = false;                    // `held` is the report's own effective usage
  };

  // Columns (and their names): the report's effective usage (optional), usage, request.
  using Triple = std::array<int, 3>;
  using Names = std::array<const char*, 3>;
  static constexpr Names kCpuColumns{"pod_effective_usage_cpu_core_seconds",
                                     "pod_usage_cpu_core_seconds", "pod_request_cpu_core_seconds"};
  static constexpr Names kMemoryColumns{"pod_effective_usage_memory_byte_seconds",
                                        "pod_usage_memory_byte_seconds",
                                        "pod_request_memory_byte_seconds"};

  static std::optional<Held> effective(const CsvRecord& r, const Triple& at, const Names& names,
                                       IssueLog& log) {
    Held h;
    const auto u = number(r, at[1], names[1], log);
    const auto q = u ? number(r, at[2], names[2], log) : std::nullopt;
    if (!u || !q) return std::nullopt;
    h.usage = *u;
    h.request = *q;
    h.held = std::max(*u, *q);
    if (at[0] >= 0 && !is_null(cell(r, at[0]))) {
      const auto e = number(r, at[0], names[0], log);
      if (!e) return std::nullopt;
      h.held = *e;
      h.reported = true;
    }
    return h;
  }

  static bool within(const CsvRecord& r, std::string_view column, double quantity, double max,
                     const char* unit, IssueLog& log) {
    if (quantity <= max) return true;
    log.error(r.line, column,
              "the row holds " + std::to_string(quantity) + " " + unit + ", over " +
                  std::to_string(max) + " for its interval; not a reading");
    return false;
  }

  static std::string describe(const char* what, double held, double usage, double request,
                              bool reported, const char* unit) {
    char buf[160];
    if (reported)
      std::snprintf(buf, sizeof buf,
                    "%s: %.6g %s (the report's effective usage; used %.6g, requested %.6g)", what,
                    held, unit, usage, request);
    else
      std::snprintf(buf, sizeof buf, "%s: %.6g %s, the larger of used %.6g and requested %.6g",
                    what, held, unit, usage, request);
    return buf;
  }

  bool volume(const CsvRecord& r, ledger::Charge& c, IssueLog& log, double hours,
              ledger::UnixSeconds start) {
    double held = 0;
    for (const auto& [i, name] :
         {std::pair{capacity_, "persistentvolumeclaim_capacity_byte_seconds"},
          {request_, "volume_request_storage_byte_seconds"},
          {usage_, "persistentvolumeclaim_usage_byte_seconds"}}) {
      const auto v = number(r, i, name, log);
      if (!v) return false;
      held = std::max(held, *v);
    }
    const double gib_hours = held / 3600.0 / kGib;
    if (!within(r, "persistentvolumeclaim_capacity_byte_seconds", gib_hours, kMaxStorageGib * hours,
                "GiB-hours", log))
      return false;
    const double month_hours = 24.0 * days_in_month(start);
    tag_cell(r, "persistentvolumeclaim", claim_, c);
    tag_cell(r, "persistentvolume", volume_, c);
    tag_cell(r, "storageclass", class_, c);
    add_labels(cell(r, labels_.first), c.tags);
    add_labels(cell(r, labels_.second), c.tags);
    shared_labels(r, c);
    c.service_category = "Storage";
    c.resource_id = text_cell(r, volume_);
    c.resource_name = text_cell(r, claim_);
    if (c.resource_id.empty()) c.resource_id = c.resource_name;
    c.resource_type = "PersistentVolumeClaim";
    c.sku_id = text_cell(r, class_);
    c.pricing_unit = c.consumed_unit = std::string(ledger::kGibMonths);
    c.pricing_quantity = c.consumed_quantity = gib_hours / month_hours;
    char buf[160];
    std::snprintf(
        buf, sizeof buf,
        "storage: %.6g GiB for %.6g h of a %d-day month (the larger of capacity, request, used)",
        gib_hours / hours, hours, days_in_month(start));
    c.charge_description = buf;
    return true;
  }

  // The namespace's labels, then the node's, on the row's day (koku: node < namespace < pod or
  // volume labels).
  void shared_labels(const CsvRecord& r, ledger::Charge& c) const {
    const ledger::Day day = ledger::day_of(c.period_start);
    labels_of_.apply(Labels::Of::kNamespace, cell(r, namespace_), day, c.tags);
    labels_of_.apply(Labels::Of::kNode, cell(r, node_), day, c.tags);
  }

  bool storage_ = false, pending_ = false;
  int start_ = -1, end_ = -1, namespace_ = -1, pod_ = -1, node_ = -1, node_id_ = -1;
  int usage_ = -1, request_ = -1, effective_ = -1, memory_usage_ = -1, memory_request_ = -1,
      memory_effective_ = -1;
  int claim_ = -1, volume_ = -1, class_ = -1, capacity_ = -1;
  std::pair<int, int> labels_{-1, -1};
  ledger::Charge pending_memory_;
  const Labels& labels_of_;
};

// Picks the report's reader from its header: GPUs (gpu_pod_uptime), virtual machines
// (vm_uptime_total_seconds), node or namespace labels, or pods and volumes; then hands every call
// to it.
class Switch final : public CsvDialect {
 public:
  explicit Switch(DeliveryContext* context) : labels_(context ? context->labels : own_) {}
  core::Status header(const std::vector<std::string_view>& names, IssueLog& log) override {
    const Columns cols(names);
    if (cols.has("gpu_pod_uptime"))
      part_ = make_gpu_part(labels_);
    else if (cols.has("vm_uptime_total_seconds"))
      part_ = make_vm_part(labels_);
    else if (cols.has("node_labels") || cols.has("namespace_labels"))
      part_ = make_labels_part(labels_);
    else
      part_ = make_usage_part(labels_);
    return part_->header(names, log);
  }
  bool row(const CsvRecord& r, ledger::Charge& c, IssueLog& log, std::int64_t& rounded) override {
    return part_->row(r, c, log, rounded);
  }
  bool next(ledger::Charge& c) override { return part_->next(c); }
  bool absorbed() const override { return part_->absorbed(); }
  std::string version() const override { return part_ ? part_->version() : "ocp"; }
  std::string_view tags_column() const override {
    return part_ ? part_->tags_column() : "pod_labels";
  }

 private:
  Labels own_;  // without a delivery: this file's labels alone
  Labels& labels_;
  std::unique_ptr<CsvDialect> part_;
};

}  // namespace

std::unique_ptr<CsvDialect> make_usage_part(Labels& labels) {
  return std::make_unique<UsagePart>(labels);
}

}  // namespace ocp

std::unique_ptr<CsvDialect> make_ocp_dialect(DeliveryContext* context) {
  return std::make_unique<ocp::Switch>(context);
}

}  // namespace aicost::billing
