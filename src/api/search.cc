#include <chrono>
#include <filesystem>
#include <fstream>

#include "aicost/config/search_plan.h"
#include "aicost/config/serving_plan.h"
#include "aicost/core/text.h"
#include "aicost/perf/interval.h"
#include "aicost/report/search_report.h"
#include "plan_run.h"

namespace aicost::api {

namespace {

// --emit-plan: the best plan as a plan file, after the result was rendered.
std::optional<core::Error> emit_best(const config::SearchRequest& req,
                                     const search::SearchResult& result, const std::string& path,
                                     const std::string& origin) {
  if (result.top.empty()) {
    return core::make_error(core::ErrorCode::kInfeasible,
                            "no plan meets the constraints; nothing to emit", origin);
  }
  const std::string dir = std::filesystem::path(path).parent_path().string();
  auto yaml = config::emit_plan(req, result.top.front(), dir.empty() ? "." : dir);
  if (!yaml) return yaml.error();
  std::ofstream out(path);
  out << *yaml;
  if (!out) return core::make_error(core::ErrorCode::kIo, "cannot write file", path);
  return std::nullopt;
}

}  // namespace

core::Result<Output> search(const PlanSource& src, const catalog::Catalog& cat, report::Format fmt,
                            const SearchOptions& options) {
  if (config::is_serving_text(src.text)) return estimate_serving(src, cat, fmt, "", false);
  auto req = config::parse_search_plan(src.text, src.origin,
                                       src.base_dir.empty() ? "." : src.base_dir, cat);
  if (!req) return req.error();
  search::SearchOptions opts;
  opts.objective = options.objective.value_or(req->objective);
  opts.top = options.top > 0 ? options.top : req->top;
  opts.threads = options.threads;
  opts.cancel = options.cancel;
  opts.explain_infeasible = true;  // "what came closest" when nothing fits
  std::atomic<uint64_t> done{0};
  opts.progress = &done;
  const auto start = std::chrono::steady_clock::now();
  search::SearchResult result;
  {
    std::shared_ptr<void> bar;
    if (options.progress) {
      bar = options.progress("searching", done, search::count_layouts(req->base.job, req->space));
    }
    result = search::run_search(req->base.job, req->base.cost, req->space, req->constraints, opts);
  }
  if (result.cancelled) {
    return core::make_error(core::ErrorCode::kCancelled, "the search was interrupted", src.origin);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report::SearchView view{req->base.name,    &req->space, &result,    opts.objective,
                          &req->constraints, {},          req->notes, {}};
  const auto& base_job = req->base.job;
  for (const auto& opt : req->space.gpus) {
    view.gpu_intervals.push_back(perf::interval_for(
        cat.training_bands(),
        perf::regime_of(opt.gpu.generation, base_job.precision, base_job.model.is_moe())));
  }
  for (const auto& c : result.top) {
    const auto job = search::job_of(req->base.job, req->space, c);
    auto est = perf::estimate_training(job);
    if (est) {
      view.top_costs.push_back(
          costing::estimate_cost(job, *est, search::costs_of(req->base.cost, req->space, c)));
    }
  }
  Output out;
  out.text = report::render_search(view, fmt);
  out.note = core::sprintf("searched %.0f candidates (%llu evaluated) in %.2f s", result.enumerated,
                           static_cast<unsigned long long>(result.evaluated), seconds);
  if (!options.emit_plan.empty())
    out.error_after = emit_best(*req, result, options.emit_plan, src.origin);
  out.status = result.top.empty() ? 1 : 0;
  return out;
}

}  // namespace aicost::api
