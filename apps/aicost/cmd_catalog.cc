#include <iostream>

#include "aicost/report/catalog_report.h"
#include "commands.h"

namespace aicost::app {

Command catalog_command() {
  return {"catalog", "list the GPUs, instances or model presets aicost knows",
          [](CLI::App& sub, const GlobalOptions& g) -> std::function<int()> {
            auto what = std::make_shared<std::string>();
            sub.add_option("what", *what, "gpus, instances or models")
                ->required()
                ->check(CLI::IsMember({"gpus", "instances", "models"}));
            sub.footer("Example: aicost catalog gpus -o markdown");
            return [what, &g] {
              auto fmt = output_format(g);
              if (!fmt) return report_error(fmt.error(), g);
              auto cat = load_catalog(g);
              if (!cat) return report_error(cat.error(), g);
              if (*what == "gpus") std::cout << report::render_gpus(*cat, *fmt);
              if (*what == "instances") std::cout << report::render_instances(*cat, *fmt);
              if (*what == "models") std::cout << report::render_models(*cat, *fmt);
              return 0;
            };
          }};
}

}  // namespace aicost::app
