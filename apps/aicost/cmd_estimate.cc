#include "commands.h"

namespace aicost::app {

Command estimate_command() {
  return {"estimate",
          "time, MFU, memory and cost of a training plan; replicas, latency and monthly cost of a "
          "serving plan",
          [](CLI::App& sub, const GlobalOptions& g) -> std::function<int()> {
            auto plan = std::make_shared<std::string>();
            auto allow_oom = std::make_shared<bool>(false);
            auto runs = std::make_shared<int>(0);
            auto seed = std::make_shared<uint64_t>(1);
            auto replicas_csv = std::make_shared<std::string>();
            auto conservative = std::make_shared<bool>(false);
            sub.add_option("plan", *plan, "plan file (YAML)")->required();
            sub.add_flag("--allow-oom", *allow_oom,
                         "estimate a plan even when it does not fit in GPU memory");
            sub.add_option("--simulate", *runs,
                           "add Monte-Carlo bands (P10/P50/P90) of wall time and cost from N runs");
            sub.add_option("--seed", *seed, "seed of --simulate")->capture_default_str();
            sub.add_option("--replicas-csv", *replicas_csv,
                           "serving plans: write replicas per minute of each scaling policy (CSV)");
            sub.add_flag("--conservative", *conservative,
                         "serving plans: size capacity on the pessimistic end of the 80 % interval "
                         "(every time slower by the model's cross-validated error)");
            sub.footer("Example: aicost estimate examples/gpt3-175b-a100.yaml -o json");
            return [plan, allow_oom, runs, seed, replicas_csv, conservative, &g] {
              auto fmt = output_format(g);
              if (!fmt) return report_error(fmt.error(), g);
              auto cat = load_catalog(g);
              if (!cat) return report_error(cat.error(), g);
              auto src = api::plan_file(*plan);
              if (!src) return report_error(src.error(), g);
              api::EstimateOptions o;
              o.allow_oom = *allow_oom;
              o.simulate = *runs;
              o.seed = *seed;
              o.replicas_csv = *replicas_csv;
              o.conservative = *conservative;
              o.progress = progress_bar();
              return print_output(api::estimate(*src, *cat, *fmt, o), *fmt, g);
            };
          }};
}

Command diff_command() {
  return {
      "diff",
      "compare two plans (training or serving): what changed and what it does to time and money",
      [](CLI::App& sub, const GlobalOptions& g) -> std::function<int()> {
        auto a = std::make_shared<std::string>();
        auto b = std::make_shared<std::string>();
        sub.add_option("a", *a, "the first plan (the baseline)")->required();
        sub.add_option("b", *b, "the second plan")->required();
        sub.footer(
            "Example: aicost diff examples/gpt3-175b-a100.yaml examples/gpt3-175b-h100-owned.yaml");
        return [a, b, &g] {
          auto fmt = output_format(g);
          if (!fmt) return report_error(fmt.error(), g);
          auto cat = load_catalog(g);
          if (!cat) return report_error(cat.error(), g);
          auto sa = api::plan_file(*a);
          if (!sa) return report_error(sa.error(), g);
          auto sb = api::plan_file(*b);
          if (!sb) return report_error(sb.error(), g);
          return print_output(api::diff(*sa, *sb, *cat, *fmt), *fmt, g);
        };
      }};
}

}  // namespace aicost::app
