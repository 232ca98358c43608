// What the two dcgm-exporter readers share (dcgm_text.cc, dcgm_csv.cc): the label fields of a
// sample and which label wins, Prometheus numbers, and the warnings on garbage values and on
// samples that name no GPU.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "aicost/ledger/telemetry.h"
#include "issue_log.h"

namespace aicost::billing::dcgm {

enum class Field { kHost, kGpu, kUuid, kModel, kNs, kPod, kContainer, kJob };

// The member of `g` that holds field `f`.
std::string& field_of(ledger::GpuSample& g, Field f);

// Fills the label fields of one sample, keeping the highest-ranked label of each field.
class Labels {
 public:
  explicit Labels(ledger::GpuSample& g) : g_(g) { rank_.fill(-1); }
  // An empty value is the same as no label (Prometheus data model).
  void set(std::string_view name, std::string_view value);

 private:
  ledger::GpuSample& g_;
  std::array<int, 8> rank_{};
};

inline bool blank(char c) { return c == ' ' || c == '\t'; }
// `s` without surrounding spaces, tabs and carriage returns.
std::string_view trim(std::string_view s);

// A Prometheus float: decimal, NaN, +Inf, -Inf (any case, as the Go parser accepts).
std::optional<double> parse_number(std::string_view s);

// A value convert_dcgm_value refuses: one warning per metric, naming the range expected.
void warn_garbage(IssueLog& log, std::int64_t line, ledger::GpuMetric m, std::string_view text);
// A sample with neither gpu nor UUID label: one warning for the read.
void warn_no_gpu(IssueLog& log, const ledger::GpuSample& g);

}  // namespace aicost::billing::dcgm
