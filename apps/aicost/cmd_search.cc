#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "aicost/config/search_plan.h"
#include "aicost/config/serving_plan.h"
#include "aicost/perf/interval.h"
#include "aicost/report/search_report.h"
#include "commands.h"
#include "progress.h"

namespace aicost::app {

namespace {

struct SearchArgs {
  std::string plan;
  int top = 0;
  std::string objective;
  int threads = 0;
  std::string emit;
  bool quiet = false;
};

}  // namespace

Command search_command() {
  return {"search", "find the cheapest (or fastest) way to run a training plan",
          [](CLI::App& sub, const GlobalOptions& g) -> std::function<int()> {
            auto a = std::make_shared<SearchArgs>();
            sub.add_option("plan", a->plan, "plan file; left-out, listed or ranged fields are searched")
                ->required();
            sub.add_option("--top", a->top, "how many plans to list (default: search.top or 10)");
            sub.add_option("--objective", a->objective, "cheapest, fastest or best-mfu")
                ->check(CLI::IsMember({"cheapest", "fastest", "best-mfu"}));
            sub.add_option("--threads", a->threads, "worker threads (default: all cores)");
            sub.add_option("--emit-plan", a->emit, "write the best plan as a plan file for `aicost estimate`");
            sub.add_flag("-q,--quiet", a->quiet, "no progress bar and no timing line");
            sub.footer("Example: aicost search examples/search-llama3-70b-90days.yaml --top 5");
            return [a, &g] {
              auto fmt = output_format(g);
              if (!fmt) return report_error(fmt.error(), g);
              auto cat = load_catalog(g);
              if (!cat) return report_error(cat.error(), g);
              if (config::is_serving_plan(a->plan)) {
                return estimate_serving(a->plan, *cat, *fmt, g, "");
              }
              auto req = config::load_search_plan(a->plan, *cat);
              if (!req) return report_error(req.error(), g);
              search::SearchOptions opts;
              opts.objective = req->objective;
              if (a->objective == "fastest") opts.objective = search::Objective::kFastest;
              if (a->objective == "best-mfu") opts.objective = search::Objective::kBestMfu;
              if (a->objective == "cheapest") opts.objective = search::Objective::kCheapest;
              opts.top = a->top > 0 ? a->top : req->top;
              opts.threads = a->threads;
              opts.explain_infeasible = true;  // "what came closest" when nothing fits
              std::atomic<uint64_t> done{0};
              opts.progress = &done;
              const auto start = std::chrono::steady_clock::now();
              search::SearchResult result;
              {
                std::unique_ptr<Progress> bar;
                if (!a->quiet) {
                  bar = std::make_unique<Progress>("searching", done, search::count_layouts(req->base.job, req->space));
                }
                result = search::run_search(req->base.job, req->base.cost, req->space,
                                            req->constraints, opts);
              }
              const double seconds =
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
              report::SearchView view{req->base.name, &req->space, &result, opts.objective,
                                      &req->constraints, {}, req->notes};
              const auto& base_job = req->base.job;
              for (const auto& opt : req->space.gpus) {
                view.gpu_intervals.push_back(perf::interval_for(
                    cat->training_bands(),
                    perf::regime_of(opt.gpu.generation, base_job.precision, base_job.model.is_moe())));
              }
              for (const auto& c : result.top) {
                const auto job = search::job_of(req->base.job, req->space, c);
                auto est = perf::estimate_training(job);
                if (est) {
                  view.top_costs.push_back(costing::estimate_cost(
                      job, *est, search::costs_of(req->base.cost, req->space, c)));
                }
              }
              std::cout << report::render_search(view, *fmt);
              if (!a->quiet && isatty(STDERR_FILENO)) {
                std::fprintf(stderr, "searched %.0f candidates (%llu evaluated) in %.2f s\n",
                             result.enumerated, static_cast<unsigned long long>(result.evaluated),
                             seconds);
              }
              if (!a->emit.empty()) {
                if (result.top.empty()) {
                  return report_error(core::make_error(core::ErrorCode::kInfeasible,
                                                       "no plan meets the constraints; nothing to emit",
                                                       a->plan),
                                      g);
                }
                const std::string dir = std::filesystem::path(a->emit).parent_path().string();
                auto yaml = config::emit_plan(*req, result.top.front(), dir.empty() ? "." : dir);
                if (!yaml) return report_error(yaml.error(), g);
                std::ofstream out(a->emit);
                out << *yaml;
                if (!out) {
                  return report_error(core::make_error(core::ErrorCode::kIo, "cannot write file", a->emit), g);
                }
              }
              return result.top.empty() ? 1 : 0;
            };
          }};
}

}  // namespace aicost::app
