// The command line as data, read from the CLI11 definitions that parse it, so that the shell
// completions and the man page (shell.cc) cannot drift from the commands.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace aicost::app {

struct CliOption {
  std::vector<std::string> names;  // "-o", "--output"; empty for a positional
  std::string positional;          // a positional's name ("plan"); empty for an option
  std::string description;
  std::string value;                 // what the value is ("TEXT", "PATH"); empty for a flag
  std::vector<std::string> choices;  // the values a CLI::IsMember check allows; empty when free
  bool takes_value() const { return !value.empty(); }
};

struct CliCommand {
  std::string path;  // "aicost ledger report"
  std::string name;  // "report"
  std::string description;
  std::string footer;
  std::vector<CliOption> options;    // its own, not those it inherits (see `inherited`)
  std::vector<CliOption> inherited;  // the options of the commands above it that still apply
  std::vector<CliCommand> commands;  // its subcommands, hidden ones left out
};

// The tree under `app` (the root: "aicost"). Options of a command apply to its subcommands too
// (aicost's global options and `ledger --db` fall through), so each command lists them again as
// `inherited`; --help is left out of `inherited` (each command has its own).
CliCommand cli_tree(const CLI::App& app);

// Every command of the tree in depth-first order, the root first.
std::vector<const CliCommand*> all_commands(const CliCommand& root);

}  // namespace aicost::app
