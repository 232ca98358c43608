// What the OpenShift (koku) report readers share: ocp.cc (pods, volumes, and the switch that picks
// the reader from the header), ocp_gpu.cc (NVIDIA GPUs) and ocp_labels.cc (node and namespace
// labels, which tag the rows of the other reports of the same delivery).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aicost/billing/reader.h"
#include "dialect.h"

namespace aicost::billing {

namespace ocp {

inline constexpr double kGib = 1024.0 * 1024.0 * 1024.0;

// The labels koku writes, "label_app:web|label_tier:db": tags app=web, tier=db (koku's operator
// prefixes each Kubernetes label with label_, which is not part of the label). A key already in
// `tags` keeps its value: the caller adds the labels that win first.
void add_labels(std::string_view text, std::vector<ledger::Tag>& tags);

// A quantity cell: a finite number >= 0, or an error issue naming `what` ("seconds"). Null is 0
// (koku writes nothing for a pod without a request).
std::optional<double> number(const CsvRecord& r, int i, std::string_view column, IssueLog& log,
                             std::string_view what = "seconds");

// A tag `key` with the cell's text, unless the cell is null.
void tag_cell(const CsvRecord& r, const char* key, int column, ledger::Charge& c);

// The row's interval [start, end) from interval_start and interval_end, or an error issue. The
// operator ends an hour at its last second (14:59:59): such an hour ends a second later.
std::optional<std::pair<ledger::UnixSeconds, ledger::UnixSeconds>> interval(const CsvRecord& r,
                                                                            int start, int end,
                                                                            IssueLog& log);

// What every OpenShift usage row of an hour's interval [start, end) of `namespace_column` says:
// its period and billing period (the calendar month), provider and service OpenShift, category
// Compute, a usage charge, sub-account = the namespace.
void stamp_usage(const CsvRecord& r, ledger::UnixSeconds start, ledger::UnixSeconds end,
                 int namespace_column, ledger::Charge& c);

// Whether `uptime` seconds fit the interval [start, end): the operator counts the seconds of the
// interval a pod or VM ran, and a minute more is its edge sample. Else an error issue on `column`.
bool uptime_fits(const CsvRecord& r, double uptime, ledger::UnixSeconds start,
                 ledger::UnixSeconds end, const char* column, IssueLog& log);

// The node and namespace labels of one delivery, by name and UTC day, as koku's daily summary
// joins them to the pod, volume and GPU rows (koku/masu/database/trino_sql/openshift/
// reporting_ocpusagelineitem_daily_summary.sql: map_concat(node_labels, namespace_labels,
// pod_labels), the later map winning). A name's rows of one day are merged, a key keeping the
// first value read.
class Labels {
 public:
  enum class Of { kNode, kNamespace };
  void add(Of of, std::string_view name, ledger::Day day, std::string_view text);
  // Adds the labels of `name` on `day` to `tags` (keys already there win).
  void apply(Of of, std::string_view name, ledger::Day day, std::vector<ledger::Tag>& tags) const;
  bool empty() const { return by_.empty(); }

 private:
  std::map<std::tuple<Of, std::string, ledger::Day>, std::vector<ledger::Tag>, std::less<>> by_;
};

// The readers of the GPU and label reports; `labels` is the delivery's (never null).
std::unique_ptr<CsvDialect> make_gpu_part(Labels& labels);
std::unique_ptr<CsvDialect> make_labels_part(Labels& labels);
// The virtual machine reader (ocp_vm.cc).
std::unique_ptr<CsvDialect> make_vm_part(Labels& labels);
// The pod and volume reader (ocp.cc).
std::unique_ptr<CsvDialect> make_usage_part(Labels& labels);

// An OpenShift upload's node and namespace labels reports tag the rows of its other reports read
// after them (ocp_labels.cc), so they are read first, whatever the parts' order or names
// (koku's payloads name them <uuid>_openshift_usage_report.N.csv). Other deliveries keep their
// order.
std::vector<std::string> labels_first(const std::vector<std::string>& parts, Format format);

}  // namespace ocp

// The state the parts of one delivery share (reader.h).
struct DeliveryContext {
  ocp::Labels labels;
};

}  // namespace aicost::billing
