#include "yaml_source.h"

#include <cmath>
#include <sstream>

#include "aicost/core/suggest.h"

namespace aicost::config {

using core::ErrorCode;

Source Source::from_text(std::string name, const std::string& text) {
  Source s;
  s.name = std::move(name);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) s.lines.push_back(line);
  return s;
}

std::string Source::where(const YAML::Mark& mark) const {
  if (mark.is_null()) return name;
  return name + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

std::string Source::excerpt(const YAML::Mark& mark) const {
  if (mark.is_null() || mark.line < 0 || static_cast<size_t>(mark.line) >= lines.size()) return "";
  return "    " + lines[mark.line] + "\n    " + std::string(mark.column, ' ') + "^";
}

core::Error Source::error(const YAML::Mark& mark, std::string message, ErrorCode code) const {
  if (mark.is_null()) return core::make_error(code, std::move(message), name);
  return core::make_error_at(code, std::move(message),
                             {name, mark.line + 1, mark.column + 1, excerpt(mark)});
}

namespace {

// yaml-cpp reports an unclosed flow collection where it gave up; the user needs the opener.
// Returns the mark of the last '[' or '{' before `until` that is not closed, outside quotes and
// comments, or a null mark.
YAML::Mark unclosed_opener(const Source& source, const YAML::Mark& until) {
  std::vector<YAML::Mark> open;
  for (int l = 0; l <= until.line && l < static_cast<int>(source.lines.size()); ++l) {
    const std::string& line = source.lines[l];
    char quote = 0;
    for (int c = 0; c < static_cast<int>(line.size()); ++c) {
      if (l == until.line && c >= until.column) break;
      const char ch = line[c];
      if (quote) {
        if (ch == quote) quote = 0;
      } else if (ch == '"' || ch == '\'') {
        quote = ch;
      } else if (ch == '#') {
        break;
      } else if (ch == '[' || ch == '{') {
        YAML::Mark m;
        m.line = l;
        m.column = c;
        open.push_back(m);
      } else if ((ch == ']' || ch == '}') && !open.empty()) {
        open.pop_back();
      }
    }
  }
  return open.empty() ? YAML::Mark::null_mark() : open.back();
}

}  // namespace

std::optional<int> positive_int(const std::string& text) {
  size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(text, &used);
  } catch (...) {
    return std::nullopt;
  }
  if (used != text.size() || v < 1) return std::nullopt;
  return v;
}

core::Result<YAML::Node> parse_yaml(const Source& source, const std::string& text) {
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    if (e.msg.find("flow not found") != std::string::npos) {
      const YAML::Mark opener = unclosed_opener(source, e.mark);
      if (!opener.is_null()) {
        return source.error(opener, "malformed YAML: this bracket is never closed",
                            ErrorCode::kParse);
      }
    }
    return source.error(e.mark, "malformed YAML: " + e.msg, ErrorCode::kParse);
  } catch (const YAML::Exception& e) {
    return source.error(e.mark, std::string("malformed YAML: ") + e.what(), ErrorCode::kParse);
  }
}

namespace {

bool all_scalars(const YAML::Node& n) {
  for (const auto& item : n) {
    if (!item.IsScalar()) return false;
  }
  return true;
}

void flatten_into(const YAML::Node& n, const std::string& path,
                  std::vector<std::pair<std::string, std::string>>& out) {
  if (n.IsMap()) {
    if (n.size() == 0) out.emplace_back(path, "{}");
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      flatten_into(kv.second, path.empty() ? key : path + "." + key, out);
    }
  } else if (n.IsSequence()) {
    if (all_scalars(n)) {
      std::string text = "[";
      for (const auto& item : n) text += (text.size() > 1 ? ", " : "") + item.Scalar();
      out.emplace_back(path, text + "]");
      return;
    }
    for (size_t i = 0; i < n.size(); ++i) {
      flatten_into(n[i], path + "[" + std::to_string(i) + "]", out);
    }
  } else if (n.IsScalar()) {
    out.emplace_back(path, n.Scalar());
  } else {
    out.emplace_back(path, "");  // a key with no value
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> flatten(const YAML::Node& root,
                                                         const std::set<std::string>& skip) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!root.IsMap()) return out;
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    if (!skip.count(key)) flatten_into(kv.second, key, out);
  }
  return out;
}

namespace {
constexpr const char* kSearchOnly =
    "is a list or a range: only `aicost search` takes those; give one value to estimate";
}  // namespace

MapReader::MapReader(const YAML::Node& node, std::string path, const Source& source)
    : node_(node), path_(std::move(path)), source_(source) {}

core::Error MapReader::not_a_map() const {
  return source_.error(node_.Mark(), "'" + path_ + "' must be a mapping of keys to values");
}

void MapReader::alias(const std::string& alias, const std::string& key) {
  aliases_.emplace_back(alias, key);
  known_.insert(alias);
}

std::optional<std::pair<std::string, YAML::Node>> MapReader::find(const std::string& key) {
  known_.insert(key);
  if (!node_.IsMap()) return std::nullopt;
  if (auto n = node_[key]) return std::pair{key, n};
  for (const auto& [a, k] : aliases_) {
    if (k == key) {
      if (auto n = node_[a]) return std::pair{a, n};
    }
  }
  return std::nullopt;
}

bool MapReader::has(const std::string& key) { return find(key).has_value(); }

YAML::Node MapReader::node(const std::string& key) {
  auto f = find(key);
  return f ? f->second : YAML::Node();
}

core::Error MapReader::bad(const YAML::Node& n, const std::string& key,
                           const std::string& why) const {
  const std::string full = path_.empty() ? key : path_ + "." + key;
  return source_.error(n.Mark(), "'" + full + "' " + why);
}

core::Result<std::optional<std::string>> MapReader::string(const std::string& key) {
  auto f = find(key);
  if (!f || f->second.IsNull()) return std::optional<std::string>();
  if (f->second.IsSequence()) return bad(f->second, f->first, kSearchOnly);
  if (!f->second.IsScalar()) return bad(f->second, f->first, "must be a single value");
  return std::optional<std::string>(f->second.Scalar());
}

core::Result<std::optional<int>> MapReader::integer(const std::string& key) {
  auto f = find(key);
  if (!f || f->second.IsNull()) return std::optional<int>();
  if (f->second.IsSequence()) return bad(f->second, f->first, kSearchOnly);
  if (!f->second.IsScalar()) return bad(f->second, f->first, "must be a whole number");
  const std::string& text = f->second.Scalar();
  if (text.find("..") != std::string::npos) return bad(f->second, f->first, kSearchOnly);
  size_t used = 0;
  long v = 0;
  try {
    v = std::stol(text, &used);
  } catch (...) {
    used = 0;
  }
  if (used == 0 || used != text.size()) {
    return bad(f->second, f->first, "must be a whole number, got '" + text + "'");
  }
  if (v < 0) return bad(f->second, f->first, "must not be negative, got " + text);
  return std::optional<int>(static_cast<int>(v));
}

core::Result<std::optional<bool>> MapReader::boolean(const std::string& key) {
  auto f = find(key);
  if (!f || f->second.IsNull()) return std::optional<bool>();
  bool v = false;
  if (f->second.IsSequence()) return bad(f->second, f->first, kSearchOnly);
  if (!f->second.IsScalar() || !YAML::convert<bool>::decode(f->second, v)) {
    return bad(f->second, f->first, "must be true or false");
  }
  return std::optional<bool>(v);
}

core::Result<std::optional<double>> MapReader::ratio(const std::string& key,
                                                     const std::string& example) {
  auto f = find(key);
  if (!f || f->second.IsNull()) return std::optional<double>();
  double v = 0;
  if (!f->second.IsScalar() || !YAML::convert<double>::decode(f->second, v) || !std::isfinite(v) ||
      v < 0) {
    return bad(f->second, f->first,
               "must be a plain number (a ratio has no unit), e.g. " + example);
  }
  return std::optional<double>(v);
}

core::Result<std::optional<double>> MapReader::quantity(const std::string& key,
                                                        core::UnitKind kind) {
  auto f = find(key);
  if (!f || f->second.IsNull()) return std::optional<double>();
  if (!f->second.IsScalar()) {
    return bad(f->second, f->first, std::string("must be ") + core::unit_kind_name(kind));
  }
  auto v = core::parse_base_units(f->second.Scalar(), kind);
  if (!v) return bad(f->second, f->first, v.error().message);
  return std::optional<double>(*v);
}

core::Status MapReader::finish() const {
  if (!node_.IsMap()) return {};
  std::vector<std::string> known(known_.begin(), known_.end());
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    if (known_.count(key)) continue;
    const std::string where = path_.empty() ? "" : " in '" + path_ + "'";
    return source_.error(kv.first.Mark(), "unknown key '" + key + "'" + where + "." +
                                              core::did_you_mean(key, known));
  }
  return {};
}

}  // namespace aicost::config
