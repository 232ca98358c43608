// `aicost man` (hidden): the man page, aicost(1), written from the CLI11 definitions (cli_tree.h)
// so that it cannot drift from the commands. The build writes it to aicost.1 and `make install`
// installs it.
#include <iostream>
#include <sstream>

#include "cli_tree.h"
#include "commands.h"

namespace aicost::app {

namespace {

// Text for roff: backslashes escaped, and no line that starts with a control character.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') {
      out += "\\e";
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

// An option's names in bold, with a hyphen roff will not turn into a dash, then its value.
std::string option_label(const CliOption& o) {
  std::string label;
  for (const auto& n : o.names) {
    std::string escaped;
    for (char c : n) escaped += c == '-' ? std::string("\\-") : std::string(1, c);
    label += (label.empty() ? "" : ", ") + std::string("\\fB") + escaped + "\\fR";
  }
  if (!o.positional.empty()) label = "\\fI" + roff(o.positional) + "\\fR";
  if (o.takes_value() && o.positional.empty()) label += " \\fI" + roff(o.value) + "\\fR";
  return label;
}

void options(std::ostringstream& s, const std::vector<CliOption>& opts) {
  for (const auto& o : opts) {
    s << ".TP\n" << option_label(o) << "\n" << roff(o.description);
    if (!o.choices.empty()) {
      std::string list;
      for (const auto& c : o.choices) list += (list.empty() ? "" : ", ") + c;
      s << " (one of: " << roff(list) << ")";
    }
    s << "\n";
  }
}

void command(std::ostringstream& s, const CliCommand& c) {
  std::string synopsis = c.path;
  for (const auto& o : c.options) {
    if (!o.positional.empty()) synopsis += " " + o.positional;
  }
  if (!c.commands.empty()) synopsis += " COMMAND";
  s << ".SS \"" << roff(synopsis) << "\"\n" << roff(c.description) << "\n";
  options(s, c.options);
  if (!c.footer.empty()) s << ".PP\n.nf\n" << roff(c.footer) << "\n.fi\n";
  for (const auto& sub : c.commands) command(s, sub);
}

std::string man_page(const CliCommand& root) {
  std::ostringstream s;
  s << ".\\\" aicost(1), written by `aicost man` from the command definitions; do not edit.\n"
    << ".TH AICOST 1 \"\" \"aicost " << AICOST_VERSION << "\" \"User Commands\"\n"
    << ".SH NAME\naicost \\- " << roff(root.description.substr(root.description.find(": ") + 2))
    << "\n"
    << ".SH SYNOPSIS\n.B aicost\n\\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]\n"
    << ".SH DESCRIPTION\n"
       "Every command takes \\fB\\-\\-help\\fR. Plans, budgets, guardrails and catalogs are YAML "
       "files in "
       "which every number carries its unit; the formats, the models behind each number and their "
       "sources are in the documentation that comes with aicost (README.md and docs/).\n"
    << ".SH OPTIONS\nThese apply to every command.\n";
  options(s, root.options);
  s << ".SH COMMANDS\n";
  for (const auto& c : root.commands) command(s, c);
  s << ".SH ENVIRONMENT\n.TP\n.B AICOST_CATALOG\nextra catalog files, separated by ':', read "
       "before "
       "those given with \\fB\\-\\-catalog\\fR.\n"
       ".SH EXIT STATUS\n"
       ".TP\n0\nsuccess\n"
       ".TP\n1\nfailure: I/O, a plan that does not fit in memory, a search with no plan meeting "
       "its "
       "constraints, a webhook that did not take the alerts\n"
       ".TP\n2\nusage or input error: a bad plan, an unknown name, a malformed file\n"
       ".TP\n3\n\\fBaicost ledger check\\fR: a budget is at a gating level, or under "
       "\\fB\\-\\-strict\\fR "
       "the data is stale or missing\n"
       ".TP\n4\n\\fBaicost ledger ingest \\-\\-strict\\fR: rows were left out\n"
       ".SH STREAMS\nStandard output holds the answer alone (a table, CSV, Markdown or JSON); "
       "warnings, "
       "progress and errors go to standard error.\n";
  return s.str();
}

}  // namespace

Command man_command() {
  return {"man", "print the man page, aicost(1), in roff",
          [](CLI::App& sub, const GlobalOptions&) -> std::function<int()> {
            sub.group("");  // hidden: the build and `make install` use it, people read `man aicost`
            const CLI::App* root = sub.get_parent();
            return [root] {
              std::cout << man_page(cli_tree(*root));
              return 0;
            };
          }};
}

}  // namespace aicost::app
