#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "commands.h"

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
            sub.add_option("plan", a->plan,
                           "plan file; left-out, listed or ranged fields are searched")
                ->required();
            sub.add_option("--top", a->top, "how many plans to list (default: search.top or 10)");
            sub.add_option("--objective", a->objective, "cheapest, fastest or best-mfu")
                ->check(CLI::IsMember({"cheapest", "fastest", "best-mfu"}));
            sub.add_option("--threads", a->threads, "worker threads (default: all cores)");
            sub.add_option("--emit-plan", a->emit,
                           "write the best plan as a plan file for `aicost estimate`");
            sub.add_flag("-q,--quiet", a->quiet, "no progress bar and no timing line");
            sub.footer("Example: aicost search examples/search-llama3-70b-90days.yaml --top 5");
            return [a, &g] {
              auto fmt = output_format(g);
              if (!fmt) return report_error(fmt.error(), g);
              auto cat = load_catalog(g);
              if (!cat) return report_error(cat.error(), g);
              auto src = api::plan_file(a->plan);
              if (!src) return report_error(src.error(), g);
              api::SearchOptions o;
              o.top = a->top;
              if (a->objective == "fastest") o.objective = search::Objective::kFastest;
              if (a->objective == "best-mfu") o.objective = search::Objective::kBestMfu;
              if (a->objective == "cheapest") o.objective = search::Objective::kCheapest;
              o.threads = a->threads;
              o.emit_plan = a->emit;
              if (!a->quiet) o.progress = progress_bar();
              auto out = api::search(*src, *cat, *fmt, o);
              if (out && !a->quiet && !out->note.empty() && isatty(STDERR_FILENO)) {
                std::cout << out->text;
                std::cout.flush();
                std::fprintf(stderr, "%s\n", out->note.c_str());
                out->text.clear();
              }
              return print_output(out, *fmt, g);
            };
          }};
}

}  // namespace aicost::app
