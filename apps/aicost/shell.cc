// `aicost completion bash|zsh|fish` and the man page (`aicost man`, hidden; the build writes
// aicost.1 with it), both written from the CLI11 definitions (cli_tree.h), so they cannot drift.
#include <iostream>
#include <sstream>

#include "cli_tree.h"
#include "commands.h"

namespace aicost::app {

namespace {

// 'text' for bash and zsh: a single-quoted word.
std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// 'text' for fish, where a backslash and a quote are escaped inside single quotes.
std::string fish_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// A description on one line, for a completion menu: up to its first "; " outside parentheses.
std::string brief(const std::string& s) {
  std::string one;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (depth == 0 && c == ';' && i + 1 < s.size() && s[i + 1] == ' ') break;
    one += (c == '\n' || c == '\t') ? ' ' : c;
  }
  return one;
}

std::string join(const std::vector<std::string>& words, const char* sep = " ") {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}

// Options that apply at `c`: its own and those above it.
std::vector<const CliOption*> options_at(const CliCommand& c) {
  std::vector<const CliOption*> out;
  for (const auto& o : c.options) {
    if (o.positional.empty()) out.push_back(&o);
  }
  for (const auto& o : c.inherited) out.push_back(&o);
  return out;
}

std::vector<std::string> positional_choices(const CliCommand& c) {
  std::vector<std::string> out;
  for (const auto& o : c.options) {
    if (!o.positional.empty()) out.insert(out.end(), o.choices.begin(), o.choices.end());
  }
  return out;
}

// The case patterns of option `o` at command `c`: 'aicost ledger|-o'|'aicost ledger|--output'.
std::string option_patterns(const CliCommand& c, const CliOption& o, const char* sep) {
  std::vector<std::string> patterns;
  for (const auto& n : o.names) patterns.push_back(sh_quote(c.path + "|" + n));
  return join(patterns, sep);
}

// The case patterns of every option that takes a value, at every command.
std::string value_option_patterns(const std::vector<const CliCommand*>& commands, const char* sep) {
  std::vector<std::string> patterns;
  for (const CliCommand* c : commands) {
    for (const CliOption* o : options_at(*c)) {
      if (o->takes_value()) patterns.push_back(option_patterns(*c, *o, sep));
    }
  }
  return join(patterns, sep);
}

std::string subcommand_patterns(const std::vector<const CliCommand*>& commands, const char* sep) {
  std::vector<std::string> patterns;
  for (const CliCommand* c : commands) {
    for (const auto& sub : c->commands) patterns.push_back(sh_quote(sub.path));
  }
  return join(patterns, sep);
}

std::string bash_script(const CliCommand& root) {
  const auto commands = all_commands(root);
  std::ostringstream s;
  s << "# bash completion for aicost, written by `aicost completion bash` from its command\n"
       "# definitions. Load it with: source <(aicost completion bash)\n"
       "_aicost() {\n"
       "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
       "  local cmdpath=aicost i w cmds='' opts=''\n"
       "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
       "    w=${COMP_WORDS[i]}\n"
       "    case \"$cmdpath|$w\" in\n"
       "      "
    << value_option_patterns(commands, "|")
    << ") ((i++)); continue ;;\n"
       "    esac\n"
       "    case \"$cmdpath $w\" in\n"
       "      "
    << subcommand_patterns(commands, "|")
    << ") cmdpath=\"$cmdpath $w\" ;;\n"
       "    esac\n"
       "  done\n"
       "  case \"$cmdpath|$prev\" in\n";
  for (const CliCommand* c : commands) {
    for (const CliOption* o : options_at(*c)) {
      if (!o->takes_value()) continue;
      s << "    " << option_patterns(*c, *o, "|") << ")";
      if (!o->choices.empty()) {
        s << " COMPREPLY=($(compgen -W " << sh_quote(join(o->choices)) << " -- \"$cur\"));";
      }
      s << " return ;;\n";  // no choices: bash's own file names (complete -o default)
    }
  }
  s << "  esac\n"
       "  case \"$cmdpath\" in\n";
  for (const CliCommand* c : commands) {
    std::vector<std::string> words;
    for (const auto& sub : c->commands) words.push_back(sub.name);
    const auto choices = positional_choices(*c);
    words.insert(words.end(), choices.begin(), choices.end());
    std::vector<std::string> opts;
    for (const CliOption* o : options_at(*c))
      opts.insert(opts.end(), o->names.begin(), o->names.end());
    s << "    " << sh_quote(c->path) << ") cmds=" << sh_quote(join(words))
      << " opts=" << sh_quote(join(opts)) << " ;;\n";
  }
  s << "  esac\n"
       "  if [[ $cur == -* ]]; then\n"
       "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
       "  elif [[ -n $cmds ]]; then\n"
       "    COMPREPLY=($(compgen -W \"$cmds\" -- \"$cur\"))\n"
       "  fi\n"
       "}\n"
       "complete -o default -F _aicost aicost\n";
  return s.str();
}

// "name:description" for zsh's _describe, the name's colons escaped.
std::string zsh_item(const std::string& name, const std::string& description) {
  std::string n;
  for (char c : name) n += c == ':' ? std::string("\\:") : std::string(1, c);
  return sh_quote(description.empty() ? n : n + ":" + brief(description));
}

std::string zsh_script(const CliCommand& root) {
  const auto commands = all_commands(root);
  std::ostringstream s;
  s << "#compdef aicost\n"
       "# zsh completion for aicost, written by `aicost completion zsh` from its command "
       "definitions.\n"
       "# Put it on $fpath as _aicost, or load it with: source <(aicost completion zsh)\n"
       "_aicost() {\n"
       "  local cmdpath=aicost w i\n"
       "  local -a cmds opts\n"
       "  for ((i = 2; i < CURRENT; i++)); do\n"
       "    w=${words[i]}\n"
       "    case \"$cmdpath|$w\" in\n"
       "      ("
    << value_option_patterns(commands, "|")
    << ") ((i++)); continue ;;\n"
       "    esac\n"
       "    case \"$cmdpath $w\" in\n"
       "      ("
    << subcommand_patterns(commands, "|")
    << ") cmdpath=\"$cmdpath $w\" ;;\n"
       "    esac\n"
       "  done\n"
       "  case \"$cmdpath|${words[CURRENT-1]}\" in\n";
  for (const CliCommand* c : commands) {
    for (const CliOption* o : options_at(*c)) {
      if (!o->takes_value()) continue;
      s << "    (" << option_patterns(*c, *o, "|") << ") ";
      if (o->choices.empty()) {
        s << "_files";
      } else {
        std::vector<std::string> quoted;
        for (const auto& v : o->choices) quoted.push_back(sh_quote(v));
        s << "compadd -- " << join(quoted);
      }
      s << "; return ;;\n";
    }
  }
  s << "  esac\n"
       "  case \"$cmdpath\" in\n";
  for (const CliCommand* c : commands) {
    std::vector<std::string> items;
    for (const auto& sub : c->commands) items.push_back(zsh_item(sub.name, sub.description));
    for (const auto& v : positional_choices(*c)) items.push_back(zsh_item(v, ""));
    std::vector<std::string> opts;
    for (const CliOption* o : options_at(*c)) {
      for (const auto& n : o->names) opts.push_back(zsh_item(n, o->description));
    }
    s << "    (" << sh_quote(c->path) << ") cmds=(" << join(items) << ") opts=(" << join(opts)
      << ") ;;\n";
  }
  s << "  esac\n"
       "  if [[ ${words[CURRENT]} == -* ]]; then\n"
       "    _describe -t options option opts\n"
       "  elif (( ${#cmds} )); then\n"
       "    _describe -t commands command cmds\n"
       "  else\n"
       "    _files\n"
       "  fi\n"
       "}\n"
       "if [[ $funcstack[1] == _aicost ]]; then _aicost \"$@\"; else compdef _aicost aicost; fi\n";
  return s.str();
}

std::string fish_script(const CliCommand& root) {
  const auto commands = all_commands(root);
  std::ostringstream s;
  s << "# fish completion for aicost, written by `aicost completion fish` from its command\n"
       "# definitions. Load it with: aicost completion fish | source\n"
       "function __aicost_path\n"
       "    set -l cmdpath aicost\n"
       "    set -l skip 0\n"
       "    for w in (commandline -opc)[2..-1]\n"
       "        if test $skip = 1\n"
       "            set skip 0\n"
       "            continue\n"
       "        end\n"
       "        switch \"$cmdpath|$w\"\n"
       "            case "
    << value_option_patterns(commands, " ")
    << "\n"
       "                set skip 1\n"
       "                continue\n"
       "        end\n"
       "        switch \"$cmdpath $w\"\n"
       "            case "
    << subcommand_patterns(commands, " ")
    << "\n"
       "                set cmdpath \"$cmdpath $w\"\n"
       "        end\n"
       "    end\n"
       "    echo $cmdpath\n"
       "end\n"
       "function __aicost_at\n"
       "    test (__aicost_path) = $argv[1]\n"
       "end\n";
  for (const CliCommand* c : commands) {
    const std::string at = "-n " + fish_quote("__aicost_at " + sh_quote(c->path));
    for (const auto& sub : c->commands) {
      s << "complete -c aicost " << at << " -f -a " << fish_quote(sub.name) << " -d "
        << fish_quote(brief(sub.description)) << "\n";
    }
    if (const auto choices = positional_choices(*c); !choices.empty()) {
      s << "complete -c aicost " << at << " -f -a " << fish_quote(join(choices)) << "\n";
    }
    for (const CliOption* o : options_at(*c)) {
      s << "complete -c aicost " << at;
      for (const auto& n : o->names)
        s << (n.rfind("--", 0) == 0 ? " -l " + n.substr(2) : " -s " + n.substr(1));
      if (!o->choices.empty()) {
        s << " -x -a " << fish_quote(join(o->choices));
      } else if (o->takes_value()) {
        s << " -r -F";
      }
      s << " -d " << fish_quote(brief(o->description)) << "\n";
    }
  }
  return s.str();
}

}  // namespace

Command completion_command() {
  return {"completion", "print a completion script for bash, zsh or fish",
          [](CLI::App& sub, const GlobalOptions&) -> std::function<int()> {
            auto shell = std::make_shared<std::string>();
            sub.add_option("shell", *shell, "bash, zsh or fish")
                ->required()
                ->check(CLI::IsMember({"bash", "zsh", "fish"}));
            sub.footer(
                "Examples: source <(aicost completion bash)    (or put it in ~/.bashrc)\n"
                "          aicost completion zsh > ~/.zfunc/_aicost    (a folder on $fpath)\n"
                "          aicost completion fish > ~/.config/fish/completions/aicost.fish\n"
                "`make install` puts all three where each shell looks.");
            const CLI::App* root = sub.get_parent();
            return [shell, root] {
              const CliCommand tree = cli_tree(*root);
              if (*shell == "bash") std::cout << bash_script(tree);
              if (*shell == "zsh") std::cout << zsh_script(tree);
              if (*shell == "fish") std::cout << fish_script(tree);
              return 0;
            };
          }};
}

}  // namespace aicost::app
