// The commands of aicost as library calls: load a plan (from a file or from text), run it through
// the model, and render the result. The CLI (apps/aicost) and the Python module (python/) are thin
// layers over these functions, so they print the same bytes for the same plan.
//
// Every function returns its result rendered in the format asked for, or a core::Error (never
// prints, never exits). Files are read through config; the only files written are the ones an
// option names (--emit-plan, --replicas-csv). Thread safety: the functions share no state; a
// Catalog may be read by several calls at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aicost/catalog/catalog.h"
#include "aicost/core/result.h"
#include "aicost/report/charts.h"
#include "aicost/report/format.h"
#include "aicost/search/search.h"

namespace aicost::api {

// A plan to run: its YAML, the name errors give it (file:line:col) and the folder its relative
// paths (model.hf_config, serving.traffic_profile.csv, --emit-plan) start from.
struct PlanSource {
  std::string text;
  std::string origin = "<plan>";
  std::string base_dir = ".";
};

// Reads the plan at `path` (kIo when it cannot be read); origin is the path.
core::Result<PlanSource> plan_file(const std::string& path);

// What a command produced.
struct Output {
  std::string text;  // the rendered result, for standard output
  std::vector<std::string>
      warnings;      // for standard error after the text (empty where the text carries them)
  int status = 0;    // 0 ok; 1 the result is a failure the text explains (an SLA no option meets,
                     // a search no plan survives)
  std::string note;  // a line for a person at a terminal (the search's timing); may be empty
  std::optional<core::Error> error_after;  // a failure after the result was made (--emit-plan)
  std::vector<report::Chart>
      charts;  // the `-o html` page's charts, when the options ask (`aicost serve`)
};

// Called when a long computation starts, with the counter it advances and its total; the object
// returned is kept alive while it runs (the CLI draws a progress bar). May be empty.
using Progress = std::function<std::shared_ptr<void>(
    const char* label, const std::atomic<uint64_t>& done, uint64_t total)>;

// The shipped catalog, then the files of $AICOST_CATALOG (':'-separated), then `files`; a later
// entry with the same id replaces the earlier (docs/CATALOG.md).
core::Result<catalog::Catalog> load_catalog(const std::vector<std::string>& files);

struct EstimateOptions {
  bool allow_oom = false;     // a plan that does not fit in memory is estimated, with a warning
  int simulate = 0;           // training: Monte-Carlo runs of wall time and cost (0: none)
  uint64_t seed = 1;          // of `simulate`
  std::string replicas_csv;   // serving: write the replicas per minute of each policy here
  bool conservative = false;  // serving: size on the pessimistic end of the 80 % interval
  bool charts = false;        // fill Output::charts as `-o html` draws them, whatever `fmt`
  Progress progress;
  // Stops the simulation when set; the call then returns kCancelled.
  const std::atomic<bool>* cancel = nullptr;
};
// `aicost estimate`: a training plan (kInfeasible listing what would fit when it does not fit in
// memory and !allow_oom) or a serving plan (status 1 when no option meets the SLA).
core::Result<Output> estimate(const PlanSource& plan, const catalog::Catalog& cat,
                              report::Format fmt, const EstimateOptions& options = {});

// `aicost diff`: two training plans, each estimated as with allow_oom, or two serving plans
// (report/diff_report.h); kInvalidInput when one is a serving plan and the other is not.
core::Result<Output> diff(const PlanSource& a, const PlanSource& b, const catalog::Catalog& cat,
                          report::Format fmt);

struct SearchOptions {
  int top = 0;                                 // plans listed (0: the plan's search.top, or 10)
  std::optional<search::Objective> objective;  // default: the plan's search.objective
  int threads = 0;                             // 0: every core
  std::string emit_plan;                       // write the best plan here (empty: do not)
  Progress progress;
  // Stops the workers when set; the call then returns kCancelled.
  const std::atomic<bool>* cancel = nullptr;
};
// `aicost search`: status 1 when no plan meets the constraints. A serving plan is estimated
// (the capacity search is the same). note: "searched N candidates (M evaluated) in S s".
core::Result<Output> search(const PlanSource& plan, const catalog::Catalog& cat, report::Format fmt,
                            const SearchOptions& options = {});

struct ReliabilityOptions {
  int simulate = 2000;  // Monte-Carlo runs (0: closed form only)
  uint64_t seed = 1;
  int threads = 0;     // 0: every core
  bool spares = true;  // the spare-node sweep
  Progress progress;
  // Stops the simulations when set; the call then returns kCancelled.
  const std::atomic<bool>* cancel = nullptr;
};
// `aicost reliability` of a training plan.
core::Result<Output> reliability(const PlanSource& plan, const catalog::Catalog& cat,
                                 report::Format fmt, const ReliabilityOptions& options = {});

struct OptimizeOptions {
  std::optional<PlanSource> guardrails;  // red lines (YAML); default optimize::Guardrails
  std::string emit_plan;                 // write the combined plan here (empty: do not)
  int threads = 0;                       // of the layout searches; 0: every core
  bool charts = false;  // fill Output::charts as `-o html` draws them, whatever `fmt`
};
// `aicost optimize` of a training or serving plan.
core::Result<Output> optimize(const PlanSource& plan, const catalog::Catalog& cat,
                              report::Format fmt, const OptimizeOptions& options = {});

// `aicost catalog WHAT`: gpus, instances, models or servers (else kInvalidInput).
core::Result<Output> catalog_listing(const std::string& what, const catalog::Catalog& cat,
                                     report::Format fmt);

// `aicost validate CSV [--cv]`: a training or serving measurements CSV (docs/VALIDATION.md).
core::Result<Output> validate(const std::string& csv, bool cross_validate,
                              const catalog::Catalog& cat, report::Format fmt);

}  // namespace aicost::api
