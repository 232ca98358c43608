#include "commands.h"

namespace aicost::app {

Command catalog_command() {
  return {"catalog", "list the GPUs, instances, model presets or owned servers aicost knows",
          [](CLI::App& sub, const GlobalOptions& g) -> std::function<int()> {
            auto what = std::make_shared<std::string>();
            sub.add_option("what", *what, "gpus, instances, models or servers")
                ->required()
                ->check(CLI::IsMember({"gpus", "instances", "models", "servers"}));
            sub.footer("Example: aicost catalog gpus -o markdown");
            return [what, &g] {
              auto fmt = output_format(g);
              if (!fmt) return report_error(fmt.error(), g);
              auto cat = load_catalog(g);
              if (!cat) return report_error(cat.error(), g);
              return print_output(api::catalog_listing(*what, *cat, *fmt), *fmt, g);
            };
          }};
}

}  // namespace aicost::app
