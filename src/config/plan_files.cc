#include "aicost/config/plan_files.h"

#include "yaml_source.h"

namespace aicost::config {

namespace {

// The keys of plan files whose value is a path the reader opens.
core::Status walk(const YAML::Node& node, const Source& source) {
  if (node.IsSequence()) {
    for (const auto& item : node)
      if (auto s = walk(item, source); !s) return s;
  }
  if (!node.IsMap()) return {};
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    if (key == "hf_config")
      return source.error(
          kv.first.Mark(),
          "a plan sent to aicost serve cannot name a file on the server (model.hf_config); use "
          "model.preset or write the model's shape inline (docs/PLAN_FORMAT.md)");
    if (key == "csv")
      return source.error(
          kv.first.Mark(),
          "a plan sent to aicost serve cannot name a file on the server (traffic_profile.csv); "
          "describe the traffic with a built-in profile (docs/SERVING.md)");
    if (auto s = walk(kv.second, source); !s) return s;
  }
  return {};
}

}  // namespace

core::Status forbid_plan_files(const std::string& text, const std::string& origin) {
  const Source source = Source::from_text(origin, text);
  auto root = parse_yaml(source, text);
  if (!root) return root.error();
  return walk(*root, source);
}

}  // namespace aicost::config
