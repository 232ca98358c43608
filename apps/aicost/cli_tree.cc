#include "cli_tree.h"

#include <algorithm>

namespace aicost::app {

namespace {

// CLI11 names a value's type and its checks together: "TEXT:{gpus,instances,models,servers}".
void read_type(const std::string& type_name, CliOption& o) {
  const auto colon = type_name.find(':');
  o.value = type_name.substr(0, colon);
  if (o.value.empty()) o.value = "VALUE";
  const auto open = type_name.find('{');
  const auto close = type_name.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return;
  const std::string set = type_name.substr(open + 1, close - open - 1);
  size_t start = 0;
  while (start <= set.size()) {
    const auto comma = std::min(set.find(',', start), set.size());
    if (comma > start) o.choices.push_back(set.substr(start, comma - start));
    start = comma + 1;
  }
}

CliOption read_option(const CLI::Option& opt) {
  CliOption o;
  for (const auto& s : opt.get_snames()) o.names.push_back("-" + s);
  for (const auto& l : opt.get_lnames()) o.names.push_back("--" + l);
  if (o.names.empty()) o.positional = opt.get_name();
  o.description = opt.get_description();
  if (opt.get_expected_max() > 0 || !o.positional.empty()) read_type(opt.get_type_name(), o);
  return o;
}

bool is_help(const CliOption& o) {
  return std::find(o.names.begin(), o.names.end(), "--help") != o.names.end();
}

CliCommand read_command(const CLI::App& app, const std::string& path,
                        const std::vector<CliOption>& above) {
  CliCommand c;
  c.path = path;
  c.name = app.get_name();
  c.description = app.get_description();
  c.footer = app.get_footer();
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty()) continue;  // hidden
    c.options.push_back(read_option(*opt));
  }
  c.inherited = above;
  std::vector<CliOption> below = above;
  for (const auto& o : c.options) {
    if (o.positional.empty() && !is_help(o)) below.push_back(o);
  }
  for (const CLI::App* sub :
       app.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); })) {
    c.commands.push_back(read_command(*sub, path + " " + sub->get_name(), below));
  }
  return c;
}

void collect(const CliCommand& c, std::vector<const CliCommand*>& out) {
  out.push_back(&c);
  for (const auto& sub : c.commands) collect(sub, out);
}

}  // namespace

CliCommand cli_tree(const CLI::App& app) { return read_command(app, "aicost", {}); }

std::vector<const CliCommand*> all_commands(const CliCommand& root) {
  std::vector<const CliCommand*> out;
  collect(root, out);
  return out;
}

}  // namespace aicost::app
