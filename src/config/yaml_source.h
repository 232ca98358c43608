// Private to config: YAML documents with positions, strict key checking and unit-aware getters.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/core/units.h"

// Reads an optional value into `target` (left unchanged when absent); returns the Error if wrong.
#define TRY_ASSIGN(target, expr)                             \
  do {                                                       \
    auto r_ = (expr);                                        \
    if (!r_) return r_.error();                              \
    if (*r_) (target) = static_cast<decltype(target)>(**r_); \
  } while (false)

namespace aicost::config {

// The text of one input file, kept to quote lines in error messages.
struct Source {
  std::string name;  // file path as the user gave it, or "<builtin>/x.yaml"
  std::vector<std::string> lines;

  static Source from_text(std::string name, const std::string& text);
  // "name:line:col" (1-based) for a yaml-cpp mark (0-based).
  std::string where(const YAML::Mark& mark) const;
  // The line of `mark` and a caret under its column, indented, prefixed by a newline.
  std::string excerpt(const YAML::Mark& mark) const;
  core::Error error(const YAML::Mark& mark, std::string message,
                    core::ErrorCode code = core::ErrorCode::kInvalidInput) const;
};

// A whole number >= 1 written as `text` (no sign, no fraction), else nullopt.
std::optional<int> positive_int(const std::string& text);

// Parses YAML text; a syntax error becomes kParse with file:line:col and a caret.
core::Result<YAML::Node> parse_yaml(const Source& source, const std::string& text);

// Every value a YAML document gives, as (path, text) in document order: keys joined by '.', list
// items as [i], a list of plain values as one "[a, b]", a scalar as written, "{}" or "[]" for an
// empty collection. Top-level keys in `skip` are left out. `aicost diff` compares plans with it,
// so a key a reader adds is compared without a list to keep.
std::vector<std::pair<std::string, std::string>> flatten(const YAML::Node& root,
                                                         const std::set<std::string>& skip);

// Reads one YAML mapping. Every key read is remembered; finish() rejects the rest as unknown keys
// with a "did you mean" among the known ones. Getters return nullopt when a key is absent and an
// Error when it is present but wrong.
class MapReader {
 public:
  MapReader(const YAML::Node& node, std::string path, const Source& source);

  bool valid() const { return node_.IsMap() || node_.IsNull(); }
  core::Error not_a_map() const;
  bool has(const std::string& key);
  YAML::Node node(const std::string& key);
  const YAML::Node& self() const { return node_; }
  const std::string& path() const { return path_; }
  const Source& source() const { return source_; }

  core::Result<std::optional<std::string>> string(const std::string& key);
  core::Result<std::optional<int>> integer(const std::string& key);
  core::Result<std::optional<bool>> boolean(const std::string& key);
  // A plain number with no unit (a ratio such as a PUE); `example` shows one in the message.
  core::Result<std::optional<double>> ratio(const std::string& key, const std::string& example);
  // A quantity with its unit, in base units (core::parse_base_units); a bare number is an error
  // that says which unit to add, except for kCount where plain numbers are counts.
  core::Result<std::optional<double>> quantity(const std::string& key, core::UnitKind kind);
  // Reads a quantity into a strong-typed field, leaving it unchanged when the key is absent.
  // With `positive`, a given value of 0 is an error (an interval, a bandwidth, an MTBF).
  template <class Q>
  core::Status read(const std::string& key, core::UnitKind kind, Q& field, bool positive = false) {
    auto v = quantity(key, kind);
    if (!v) return v.error();
    if (!*v) return {};
    if (positive && **v <= 0) {
      return source_.error(node(key).Mark(), "'" + key + "' must be greater than 0");
    }
    field = Q(**v);
    return {};
  }
  // Mark a key as known without reading it (for keys another reader handles).
  void accept(const std::string& key) { known_.insert(key); }
  // Accept `alias` as another spelling of `key`; reading `key` then also finds `alias`.
  void alias(const std::string& alias, const std::string& key);
  core::Status finish() const;

 private:
  std::optional<std::pair<std::string, YAML::Node>> find(const std::string& key);
  core::Error bad(const YAML::Node& n, const std::string& key, const std::string& why) const;

  YAML::Node node_;
  std::string path_;
  const Source& source_;
  std::set<std::string> known_;
  std::vector<std::pair<std::string, std::string>> aliases_;  // alias -> key
};

}  // namespace aicost::config
