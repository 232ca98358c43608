// Private to report: the shape both `aicost diff`s (training, serving) fill and render.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aicost/report/charts.h"
#include "aicost/report/diff_report.h"
#include "json.h"

namespace aicost::report::diff {

// How an output is rounded and shown.
enum class Kind { kSeconds, kCount, kRatio, kTflops, kDays, kGib, kUsd, kUsdCents, kUsdMilli };

// One value on both sides (JSON-typed; null: not set or unknown).
struct Change {
  std::string name;
  Json a, b;
};

// An output on both sides; nullopt where that side has none.
struct Row {
  std::string path, label;
  const char* unit;
  Kind kind;
  std::optional<double> a, b, delta, relative;
};

struct Diff {
  std::string kind;  // "training" or "serving"
  std::string a_name, b_name;
  std::vector<Change> inputs;    // the files' values that differ
  std::vector<Change> resolved;  // derived values that differ
  std::vector<Row> outputs;
};

using Fields = std::vector<std::pair<std::string, Json>>;

// One side of a diff: the plan's name, its file's values and what they resolve to (the same
// field names in the same order on both sides).
struct Side {
  const std::string& name;
  const PlanValues& values;
  Fields resolved;
};

// The inputs and resolved values that differ (changed_values, changed_fields less
// without_repeats); outputs left to the caller.
Diff compare(std::string kind, const Side& a, const Side& b);

// The paths whose text differs, in a's order, then those only b has; null on a side without it.
std::vector<Change> changed_values(const PlanValues& a, const PlanValues& b);

// The pairs whose values differ; `a` and `b` list the same names in the same order.
std::vector<Change> changed_fields(const Fields& a, const Fields& b);

// `resolved` without the fields an input already shows: an input whose path ends in ".field"
// with the same two values (a file's `micro_batch_size: 2` is the resolved micro_batch_size 2).
std::vector<Change> without_repeats(std::vector<Change> resolved,
                                    const std::vector<Change>& inputs);

// An output row: rounded as its kind says, delta and relative when both sides have a value.
Row row(std::string path, std::string label, const char* unit, Kind kind, std::optional<double> a,
        std::optional<double> b);

// kJson, kCsv, kTable and kMarkdown as diff_report.h says; kHtml: a page with `charts` and the
// table.
std::string render(const Diff& d, Format f, const std::vector<Chart>& charts = {});

}  // namespace aicost::report::diff
