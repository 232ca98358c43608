// The CLI's subcommands. Each registers its options on a CLI11 app and runs with the shared
// options; handlers print to stdout (results) and stderr (errors) and return the exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "aicost/catalog/catalog.h"
#include "aicost/core/result.h"
#include "aicost/report/format.h"

namespace aicost::app {

struct GlobalOptions {
  std::vector<std::string> catalog_files;  // --catalog, plus $AICOST_CATALOG (':'-separated)
  std::string output = "table";            // -o
};

// Exit codes (README "Exit codes"): 0 ok, 1 failure, 2 usage or input error, 3 a budget gate
// (`aicost ledger check`), 4 rows left out (`aicost ledger ingest --strict`).
int exit_code(const core::Error& e);
// Prints an error to stderr (as JSON when the output format is json) and returns its exit code.
int report_error(const core::Error& e, const GlobalOptions& g);
// Builtin catalog plus the user's files.
core::Result<catalog::Catalog> load_catalog(const GlobalOptions& g);
core::Result<report::Format> output_format(const GlobalOptions& g);

struct Command {
  const char* name;
  const char* help;
  // Adds options to `sub` and returns the handler to run when the subcommand is chosen.
  std::function<std::function<int()>(CLI::App& sub, const GlobalOptions& g)> setup;
};

// `aicost estimate` and `aicost search` on a serving plan (the capacity search is the same).
int estimate_serving(const std::string& path, const catalog::Catalog& cat, report::Format fmt,
                     const GlobalOptions& g, const std::string& replicas_csv);

Command estimate_command();
Command diff_command();
Command catalog_command();
Command validate_command();
Command search_command();
Command optimize_command();
Command reliability_command();
Command ledger_command();
// `aicost ledger check`: registers its options on `check`; `db` and `threads` are `aicost ledger
// --db` and `--threads`.
std::function<int()> setup_ledger_check(CLI::App* check, const GlobalOptions& g, const std::string& db,
                                       const unsigned& threads);

}  // namespace aicost::app
