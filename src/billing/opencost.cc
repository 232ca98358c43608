// OpenCost's allocation CSV export (the cost model's EXPORT_CSV_FILE: pkg/costmodel/csv_export.go
// in github.com/opencost/opencost): one row per UTC day (Date) and allocation, with its namespace,
// controller, pod and container, average resources and costs by kind. `GPUs` is the allocation's
// average GPU count over its running minutes (Allocation.GPUs() = GPUHours / hours); the export
// has no minutes column, so GPU-hours are GPUs x 24 h, exact for an allocation that ran all day
// and an upper bound otherwise (docs/LEDGER.md). Costs are OpenCost's (USD unless its
// currencyCode says otherwise; the export does not say), TotalCost being the row's cost.
#include "dialect.h"

namespace aicost::billing {
namespace {

class OpenCostDialect final : public CsvDialect {
 public:
  core::Status header(const std::vector<std::string_view>& names, IssueLog& log) override {
    Columns cols(names);
    date_ = cols.find({"Date"});
    total_ = cols.find({"TotalCost"});
    if (date_ < 0 || total_ < 0)
      return core::make_error(
          core::ErrorCode::kInvalidInput,
          std::string("not an OpenCost allocation export: no ") +
              (date_ < 0 ? (total_ < 0 ? "Date and no TotalCost" : "Date") : "TotalCost") +
              " column");
    namespace_ = cols.find({"Namespace"});
    cluster_ = cols.find({"Cluster"});
    kind_ = cols.find({"ControllerKind"});
    controller_ = cols.find({"ControllerName"});
    pod_ = cols.find({"Pod"});
    container_ = cols.find({"Container"});
    name_ = cols.find({"Name"});
    gpus_ = cols.find({"GPUs"});
    labels_ = cols.find({"Labels"});
    label_columns_ = tag_columns(cols, "Label_");
    for (const char* c :
         {"CPUCoreUsageAverage", "CPUCoreRequestAverage", "RAMBytesUsageAverage",
          "RAMBytesRequestAverage", "NetworkReceiveBytes", "NetworkTransferBytes", "PVBytes"})
      cols.find({c});
    parts_.clear();
    for (const char* c : {"CPUCost", "RAMCost", "NetworkCost", "PVCost", "GPUCost",
                          "LoadBalancerCost", "SharedCost", "ExternalCost"})
      if (const int i = cols.find({c}); i >= 0) parts_.emplace_back(i, c);
    return cols.check_duplicates(log);
  }

  bool row(const CsvRecord& r, ledger::Charge& c, IssueLog& log, std::int64_t& rounded) override {
    c.line = r.line;
    const auto day = required_time(r, date_, "Date", log);
    if (!day) return false;
    c.period_start = *day;
    c.period_end = *day + 86400;
    c.billing_period_start = month_start(*day);
    const auto cost = total_cost(r, log, rounded);
    if (!cost) return false;
    c.billed = c.effective = c.list = *cost;
    c.currency = "USD";
    c.provider = "OpenCost";
    c.service_name = "Kubernetes";
    c.service_category = "Compute";
    c.billing_account_id = text_cell(r, cluster_);
    c.sub_account_id = c.sub_account_name = text_cell(r, namespace_);
    c.resource_id = text_cell(r, pod_);
    if (c.resource_id.empty()) c.resource_id = text_cell(r, name_);
    c.resource_name = text_cell(r, container_);
    c.resource_type = text_cell(r, kind_);
    c.charge_category = "Usage";
    c.charge_frequency = "Usage-Based";
    if (const auto gpus = quantity_cell(r, gpus_, "GPUs", log); gpus && *gpus > 0) {
      c.gpu_hours = *gpus * 24.0;
      c.consumed_unit = c.pricing_unit = "GPU-Hours";
      c.consumed_quantity = c.pricing_quantity = c.gpu_hours;
    }
    if (labels_ >= 0) tags_.read(r, labels_, "Labels", c.tags, log);  // first: it replaces c.tags
    auto tag = [&](const char* key, int column) {
      if (auto v = text_cell(r, column); !v.empty()) c.tags.push_back({key, std::move(v)});
    };
    tag("cluster", cluster_);
    tag("namespace", namespace_);
    tag("controller_kind", kind_);
    tag("controller", controller_);
    tag("pod", pod_);
    tag("container", container_);
    add_tag_cells(r, label_columns_, c.tags);
    return true;
  }

  std::string version() const override { return "opencost"; }

  // TotalCost; where it is empty (rows of an older export merged into a newer one's columns, as
  // OpenCost's exporter does), the sum of the cost columns the row has, with a warning.
  std::optional<std::int64_t> total_cost(const CsvRecord& r, IssueLog& log, std::int64_t& rounded) {
    if (!is_null(cell(r, total_))) return required_cost(r, total_, "TotalCost", log, rounded);
    std::optional<std::int64_t> sum;
    std::string names;
    for (const auto& [i, name] : parts_) {
      const auto v = amount_cell(r, i, name, log, rounded);
      if (v.bad) {
        log.error(r.line, name, v.why_not());
        return std::nullopt;
      }
      if (!v.value) continue;
      sum = sum.value_or(0) + *v.value;
      names += (names.empty() ? "" : " + ") + std::string(name);
    }
    if (!sum) {
      log.error(r.line, "TotalCost",
                "TotalCost is empty and so is every other cost column; the row has no cost");
      return std::nullopt;
    }
    log.warn_repeated(r.line, "TotalCost", "sum", [&] {
      return "TotalCost is empty; taken as the sum of the row's cost columns (" + names + ")";
    });
    return sum;
  }
  std::string_view tags_column() const override { return "Labels"; }

 private:
  int date_ = -1, total_ = -1, namespace_ = -1, cluster_ = -1, kind_ = -1, controller_ = -1,
      pod_ = -1, container_ = -1, name_ = -1, gpus_ = -1, labels_ = -1;
  std::vector<std::pair<int, std::string>> label_columns_;
  std::vector<std::pair<int, const char*>> parts_;  // the cost columns TotalCost sums
  TagReader tags_;
};

}  // namespace

std::unique_ptr<CsvDialect> make_opencost_dialect() { return std::make_unique<OpenCostDialect>(); }

}  // namespace aicost::billing
