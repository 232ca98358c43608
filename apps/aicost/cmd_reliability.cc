#include "commands.h"

namespace aicost::app {

namespace {

struct ReliabilityArgs {
  std::string plan;
  int simulate = 2000;
  uint64_t seed = 1;
  int threads = 0;
  bool no_spares = false;
  bool quiet = false;
};

}  // namespace

Command reliability_command() {
  return {"reliability",
          "failures, checkpoints, restarts and spares of a training plan, in time and money",
          [](CLI::App& sub, const GlobalOptions& g) -> std::function<int()> {
            auto a = std::make_shared<ReliabilityArgs>();
            sub.add_option("plan", a->plan, "plan file (YAML)")->required();
            sub.add_option("--simulate", a->simulate, "Monte-Carlo runs (0: closed form only)")
                ->capture_default_str();
            sub.add_option("--seed", a->seed, "seed of the simulation")->capture_default_str();
            sub.add_option("--threads", a->threads, "worker threads (default: all cores)");
            sub.add_flag("--no-spares", a->no_spares, "skip the spare-node sweep");
            sub.add_flag("-q,--quiet", a->quiet, "no progress bar");
            sub.footer("Example: aicost reliability examples/llama3-405b-16k.yaml --simulate 1000");
            return [a, &g] {
              auto fmt = output_format(g);
              if (!fmt) return report_error(fmt.error(), g);
              auto cat = load_catalog(g);
              if (!cat) return report_error(cat.error(), g);
              auto src = api::plan_file(a->plan);
              if (!src) return report_error(src.error(), g);
              api::ReliabilityOptions o;
              o.simulate = a->simulate;
              o.seed = a->seed;
              o.threads = a->threads;
              o.spares = !a->no_spares;
              if (!a->quiet) o.progress = progress_bar();
              return print_output(api::reliability(*src, *cat, *fmt, o), *fmt, g);
            };
          }};
}

}  // namespace aicost::app
