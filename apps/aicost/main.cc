// aicost: what a large-model training run will cost, before the money is spent.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "aicost/core/suggest.h"
#include "aicost/report/error_report.h"
#include "aicost/report/html.h"
#include "commands.h"
#include "progress.h"

namespace aicost::app {

int exit_code(const core::Error& e) {
  switch (e.code) {
    case core::ErrorCode::kInvalidInput:
    case core::ErrorCode::kNotFound:
    case core::ErrorCode::kParse: return 2;
    default: return 1;
  }
}

int report_error(const core::Error& e, const GlobalOptions& g) {
  if (g.output == "json") {
    std::cerr << report::render_error_json(e);
  } else {
    std::cerr << "error: " << e.what() << "\n";
  }
  return exit_code(e);
}

void print_warnings(const std::vector<std::string>& warnings, report::Format f) {
  if (f == report::Format::kJson || f == report::Format::kMarkdown) return;
  std::cout.flush();  // the table first, where both streams are one terminal
  for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
}

core::Result<catalog::Catalog> load_catalog(const GlobalOptions& g) {
  return api::load_catalog(g.catalog_files);
}

int print_output(const core::Result<api::Output>& out, report::Format fmt, const GlobalOptions& g) {
  if (!out) return report_error(out.error(), g);
  std::cout << out->text;
  print_warnings(out->warnings, fmt);
  if (out->error_after) return report_error(*out->error_after, g);
  return out->status;
}

api::Progress progress_bar() {
  return [](const char* label, const std::atomic<uint64_t>& done,
            uint64_t total) -> std::shared_ptr<void> {
    return std::make_shared<Progress>(label, done, total);
  };
}

core::Result<report::Format> output_format(const GlobalOptions& g) {
  auto f = report::format_from_string(g.output);
  if (!f) {
    return core::make_error(
        core::ErrorCode::kInvalidInput,
        "unknown output format '" + g.output + "'; use table, json, csv, markdown or html", "-o");
  }
  return *f;
}

// `-o html` on a command that has no page yet (report::html_commands): an error naming the formats
// it has, rather than a page without charts.
std::optional<core::Error> html_unavailable(const CLI::App& app, const GlobalOptions& g) {
  if (report::format_from_string(g.output) != report::Format::kHtml) return std::nullopt;
  std::string path;
  for (const CLI::App* at = &app; !at->get_subcommands().empty();
       at = at->get_subcommands().front()) {
    path += (path.empty() ? "" : " ") + at->get_subcommands().front()->get_name();
  }
  const auto& html = report::html_commands();
  if (std::find(html.begin(), html.end(), path) != html.end()) return std::nullopt;
  std::string list;
  for (const auto c : html) list += (list.empty() ? "" : ", ") + std::string(c);
  return core::make_error(core::ErrorCode::kInvalidInput,
                          "aicost " + path + " has no html page (-o html is for " + list +
                              "); use -o table, json, csv or markdown",
                          "-o");
}

// The commands of `app` a person may type; hidden ones (`aicost man`, for the build) left out.
std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub :
       app.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); }))
    names.push_back(sub->get_name());
  return names;
}

std::string command_list(const std::vector<std::string>& names) {
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return list;
}

// What to say instead of CLI11's "A subcommand is required" when the command line names a command
// that does not exist ("aicost estimat", "aicost ledger repot": the word, the closest command and
// the commands there are) or none ("aicost ledger"). Walks the arguments as CLI11 does, skipping
// options and the values they take; nullopt when the commands named are all there are.
std::optional<std::string> command_error(const CLI::App& app, int argc, char** argv) {
  const CLI::App* at = &app;
  std::string path = "aicost";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") return std::nullopt;
    if (arg.size() > 1 && arg[0] == '-') {
      const std::string name = arg.substr(0, arg.find('='));
      const CLI::Option* opt = nullptr;
      for (const CLI::App* a = at; a && !opt; a = a->get_parent())
        opt = a->get_option_no_throw(name);
      if (opt && opt->get_expected_max() > 0 && name.size() == arg.size())
        ++i;  // its value follows
      continue;
    }
    const auto names = subcommand_names(*at);
    if (std::find(names.begin(), names.end(), arg) != names.end()) {
      at = at->get_subcommand(arg);
      path += " " + arg;
      continue;
    }
    if (names.empty() || at->get_require_subcommand_min() == 0) return std::nullopt;
    return "'" + arg + "' is not a command of " + path + "." + core::did_you_mean(arg, names) +
           " Commands: " + command_list(names) + " (" + path + " --help says what each does).";
  }
  if (at->get_require_subcommand_min() == 0) return std::nullopt;
  return path + " needs a command: " + command_list(subcommand_names(*at)) + " (" + path +
         " --help says what each does).";
}

}  // namespace aicost::app

int main(int argc, char** argv) {
  using namespace aicost::app;
  CLI::App app{
      "aicost: what training or serving a large model will cost before the money is spent, the "
      "cheapest way to "
      "run it, and where real spend goes (the ledger)"};
  app.set_version_flag("--version", "aicost " AICOST_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // global options (-o, --catalog) may follow the subcommand
  GlobalOptions g;
  app.add_option(
      "--catalog", g.catalog_files,
      "extra catalog YAML file(s) with gpus/instances/models/prices; entries with an "
      "existing id replace the shipped ones (also $AICOST_CATALOG, ':'-separated; format: "
      "docs/CATALOG.md)");
  app.add_option("-o,--output", g.output,
                 "output format: table, json, csv, markdown or html (one self-contained page with "
                 "charts; docs/REPORTS.md)")
      ->capture_default_str();

  std::function<int()> handler;
  for (const Command& c :
       {estimate_command(), search_command(), optimize_command(), reliability_command(),
        diff_command(), catalog_command(), validate_command(), calibrate_command(),
        ledger_command(), serve_command(), completion_command(), man_command()}) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    auto run = c.setup(*sub, g);
    sub->callback([&handler, run] { handler = run; });
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (auto what = dynamic_cast<const CLI::RequiredError*>(&e) ? command_error(app, argc, argv)
                                                                : std::nullopt) {
      std::cerr << "error: " << *what << "\n";
      return 2;
    }
    app.exit(e);
    return 2;  // usage error, whatever CLI11's own code (ecosystem.md: map parse errors to 2)
  }
  if (!handler) return 2;
  if (auto e = html_unavailable(app, g)) return report_error(*e, g);
  // The library returns errors as values; this is the last net under a third-party exception
  // (or bad_alloc) that slipped past an adapter: a message and an exit code, never an abort.
  try {
    return handler();
  } catch (const std::exception& e) {
    return report_error(
        aicost::core::make_error(aicost::core::ErrorCode::kInternal,
                                 std::string("unexpected failure: ") + e.what() +
                                     " (please report it with the command that caused it)"),
        g);
  } catch (...) {
    return report_error(
        aicost::core::make_error(aicost::core::ErrorCode::kInternal, "unexpected failure"), g);
  }
}
