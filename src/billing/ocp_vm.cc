// The virtual machine report of koku's metrics operator (OpenShift Virtualization; koku-metrics-
// operator internal/collector/test_files/expected_reports/cm-openshift-vm-usage-202011.csv): one
// row per hour and KubeVirt VM, with its uptime, CPU and memory limits, requests and usage, and its
// disk. A row becomes a VM row of VM-hours (vm_uptime_total_seconds / 3600), unpriced for the rate
// card's `vm:` rate (ledger/rate_card.h), as koku's VM cost model charges a VM by its hours up
// (koku/masu/database/trino_sql/openshift/cost_model/hourly_cost_virtual_machine.sql:
// sum(vm_uptime_total_seconds) / 3600 AS vm_interval_hours, times the rate).
//
// Only the VM-hours: a KubeVirt VM runs inside its virt-launcher pod, whose CPU and memory the pod
// report already holds, and its disk is a persistent volume claim the storage report holds; rows of
// those here would count them twice. The VM's size is in the tags (vm_cpu_request_cores,
// vm_memory_request_gib) and the description.
#include <cmath>
#include <cstdio>

#include "aicost/core/text.h"
#include "aicost/ledger/rate_card.h"
#include "ocp_common.h"

namespace aicost::billing::ocp {
namespace {

class VmPart final : public CsvDialect {
 public:
  explicit VmPart(Labels& labels) : labels_(labels) {}

  core::Status header(const std::vector<std::string_view>& names, IssueLog& log) override {
    Columns cols(names);
    start_ = cols.find({"interval_start"});
    end_ = cols.find({"interval_end"});
    node_ = cols.find({"node"});
    node_id_ = cols.find({"resource_id"});
    namespace_ = cols.find({"namespace"});
    vm_ = cols.find({"vm_name"});
    type_ = cols.find({"vm_instance_type"});
    os_ = cols.find({"vm_os"});
    uptime_ = cols.find({"vm_uptime_total_seconds"});
    cores_ = cols.find({"vm_cpu_request_cores"});
    memory_ = cols.find({"vm_memory_request_bytes"});
    claim_ = cols.find({"vm_persistentvolumeclaim_name"});
    labels_column_ = cols.find({"vm_labels"});
    for (const char* c : {"report_period_start",
                          "report_period_end",
                          "vm_guest_os_arch",
                          "vm_guest_os_name",
                          "vm_guest_os_version",
                          "vm_cpu_limit_cores",
                          "vm_cpu_limit_core_seconds",
                          "vm_cpu_request_core_seconds",
                          "vm_cpu_request_sockets",
                          "vm_cpu_request_socket_seconds",
                          "vm_cpu_request_threads",
                          "vm_cpu_request_thread_seconds",
                          "vm_cpu_usage_total_seconds",
                          "vm_memory_limit_bytes",
                          "vm_memory_limit_byte_seconds",
                          "vm_memory_request_byte_seconds",
                          "vm_memory_usage_byte_seconds",
                          "vm_device",
                          "vm_volume_mode",
                          "vm_disk_allocated_size_byte_seconds"})
      cols.find({c});
    std::string missing;
    for (const auto& [i, name] : {std::pair{start_, "interval_start"},
                                  {end_, "interval_end"},
                                  {namespace_, "namespace"},
                                  {vm_, "vm_name"},
                                  {uptime_, "vm_uptime_total_seconds"}})
      if (i < 0) missing += std::string(missing.empty() ? "" : ", ") + name;
    if (!missing.empty())
      return core::make_error(core::ErrorCode::kInvalidInput,
                              "not an OpenShift virtual machine usage report aicost can read: no " +
                                  missing + " column");
    return cols.check_duplicates(log);
  }

  bool row(const CsvRecord& r, ledger::Charge& c, IssueLog& log, std::int64_t&) override {
    c.line = r.line;
    absorbed_ = false;
    const auto when = interval(r, start_, end_, log);
    const auto uptime = when ? number(r, uptime_, "vm_uptime_total_seconds", log) : std::nullopt;
    if (!uptime) return false;
    if (*uptime == 0) {  // not up in the hour: nothing to charge (as a GPU row without uptime)
      absorbed_ = true;
      return false;
    }
    const auto [start, end] = *when;
    if (!uptime_fits(r, *uptime, start, end, "vm_uptime_total_seconds", log)) return false;
    const auto cores = number(r, cores_, "vm_cpu_request_cores", log, "cores");
    const auto bytes =
        cores ? number(r, memory_, "vm_memory_request_bytes", log, "bytes") : std::nullopt;
    if (!cores || !bytes) return false;
    stamp_usage(r, start, end, namespace_, c);
    c.resource_id = text_cell(r, vm_);
    c.resource_name = c.resource_id;
    c.resource_type = "VirtualMachine";
    c.sku_id = text_cell(r, type_);  // the instance type ("u1.medium"), for reports; the card's
                                     // `vm:` rate prices every VM
    c.pricing_unit = c.consumed_unit = std::string(ledger::kVmHours);
    c.pricing_quantity = c.consumed_quantity = *uptime / 3600.0;
    const double gib = *bytes / kGib;
    c.charge_description = core::sprintf("VM %s: %.6g VM-hours (%.6g cores, %.6g GiB requested)",
                                         c.resource_id.c_str(), *c.pricing_quantity, *cores, gib);
    add_labels(cell(r, labels_column_), c.tags);
    tag_cell(r, "namespace", namespace_, c);
    tag_cell(r, "vm", vm_, c);
    tag_cell(r, "vm_instance_type", type_, c);
    tag_cell(r, "vm_os", os_, c);
    tag_cell(r, "node", node_, c);
    tag_cell(r, "node_resource_id", node_id_, c);
    tag_cell(r, "persistentvolumeclaim", claim_, c);
    c.tags.push_back({"vm_cpu_request_cores", core::sprintf("%g", *cores)});
    c.tags.push_back({"vm_memory_request_gib", core::sprintf("%g", gib)});
    const ledger::Day day = ledger::day_of(start);
    labels_.apply(Labels::Of::kNamespace, cell(r, namespace_), day, c.tags);
    labels_.apply(Labels::Of::kNode, cell(r, node_), day, c.tags);
    return true;
  }

  bool absorbed() const override { return absorbed_; }
  std::string version() const override { return "ocp-vm"; }
  std::string_view tags_column() const override { return "vm_labels"; }

 private:
  const Labels& labels_;
  int start_ = -1, end_ = -1, node_ = -1, node_id_ = -1, namespace_ = -1, vm_ = -1, type_ = -1,
      os_ = -1;
  int uptime_ = -1, cores_ = -1, memory_ = -1, claim_ = -1, labels_column_ = -1;
  bool absorbed_ = false;
};

}  // namespace

std::unique_ptr<CsvDialect> make_vm_part(Labels& labels) {
  return std::make_unique<VmPart>(labels);
}

}  // namespace aicost::billing::ocp
