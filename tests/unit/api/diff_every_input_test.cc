// `aicost diff` must report every value a plan file gives (issue 22: changing checkpoint_interval,
// restart_time or engineers printed "no input changed" while the cost moved). These tests change
// each `key: value` line of the shipped example plans, one at a time, by editing the text (no YAML
// library, so independent of the walk diff uses), and check that diff names the key's path. A
// plan key added later is then covered as soon as an example uses it; a value none of the edits
// below can change into a valid plan fails the test, naming the key.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "aicost/api/api.h"
#include "test_support.h"

namespace aicost::api {
namespace {

using nlohmann::json;

std::string read(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "missing " << path;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A `key: value` line of a block mapping, the dotted path of its key and the value's span.
struct Leaf {
  size_t line;
  std::string path;
  size_t begin, end;  // of the value in the line
};

// Block-mapping lines only (the example plans use no block lists); flow values count as one leaf.
std::vector<Leaf> leaves(const std::vector<std::string>& lines) {
  static const std::regex key_line(R"(^( *)([A-Za-z_][A-Za-z0-9_]*):( *)([^#]*?)( *(#.*)?)$)");
  std::vector<std::pair<size_t, std::string>> stack;  // indent, key
  std::vector<Leaf> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_match(lines[i], m, key_line)) continue;
    const size_t indent = m[1].length();
    while (!stack.empty() && stack.back().first >= indent) stack.pop_back();
    std::string path;
    for (const auto& [_, k] : stack) path += k + ".";
    path += m[2].str();
    if (m[4].length() == 0) {
      stack.emplace_back(indent, m[2].str());
      continue;
    }
    out.push_back({i, path, static_cast<size_t>(m.position(4)),
                   static_cast<size_t>(m.position(4) + m[4].length())});
  }
  return out;
}

std::string format_number(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

// Other values to try for `value`, most likely valid first.
std::vector<std::string> edits(const std::string& key, const std::string& value) {
  static const std::map<std::string, std::vector<std::string>> words = {
      {"preset", {"gpt3-175b", "llama3-70b", "llama3.1-8b"}},
      {"gpu", {"h100-sxm-80gb", "h200-sxm-141gb", "a100-sxm4-80gb"}},
      {"instance", {"gcp/a3-highgpu-8g", "gcp/a2-ultragpu-8g"}},
      {"mode", {"on-demand", "spot", "reserved-1y"}},
      {"recompute_granularity", {"full", "selective"}},
      {"precision", {"bf16", "fp16", "fp8"}},
      {"server", {"dgx-h100", "hgx-a100-80gb"}},
      {"name", {"another-name"}},
      {"policy", {"reactive", "static-peak"}},
  };
  std::vector<std::string> out;
  if (value == "true" || value == "false") return {value == "true" ? "false" : "true"};
  if (auto w = words.find(key); w != words.end()) {
    for (const auto& x : w->second) {
      if (x != value) out.push_back(x);
    }
  }
  if (value.size() > 2 && value.front() == '[' && value.back() == ']' &&
      value.find('{') == std::string::npos && value.find(',') != std::string::npos) {
    out.push_back(value.substr(0, value.rfind(',')) + "]");  // drop the last item
  }
  // The first number in the value doubled, halved, plus one.
  static const std::regex number(R"([0-9]+(\.[0-9]+)?)");
  std::smatch m;
  if (std::regex_search(value, m, number)) {
    const double x = std::stod(m.str());
    const bool whole = m[1].length() == 0;
    for (double y : {x * 2, whole ? std::floor(x / 2) : x / 2, x + 1}) {
      if (y == x || y <= 0) continue;
      out.push_back(m.prefix().str() + format_number(y) + m.suffix().str());
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

// Whether diff's inputs name `path` or something under it (a flow value's items).
bool reported(const json& inputs, const std::string& path) {
  for (const auto& x : inputs) {
    const std::string p = x["path"];
    if (p == path || p.rfind(path + ".", 0) == 0 || p.rfind(path + "[", 0) == 0) return true;
  }
  return false;
}

void every_value_is_compared(const std::string& file) {
  const auto& cat = testing::builtin_catalog();
  const std::string dir = std::string(AICOST_SOURCE_DIR) + "/examples";
  const std::string text = read(dir + "/" + file);
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  const PlanSource a{text, file, dir};
  auto same = diff(a, a, cat, report::Format::kJson);
  ASSERT_TRUE(same) << same.error().what();
  EXPECT_TRUE(json::parse(same->text)["inputs"].empty());
  const auto found = leaves(lines);
  ASSERT_GT(found.size(), 8u) << file;
  for (const auto& leaf : found) {
    if (leaf.path == "name") continue;  // the plan's name heads the diff instead
    const std::string value = lines[leaf.line].substr(leaf.begin, leaf.end - leaf.begin);
    const std::string key = leaf.path.substr(leaf.path.rfind('.') + 1);
    bool tried = false;
    std::string why;  // what the edits' plans were refused for
    // Each edit alone, then (a value tied to others, such as a GPU to the instance and server
    // priced) with one other value's line left out, or one other section's values.
    const std::string section = leaf.path.substr(0, leaf.path.find('.'));
    std::vector<std::optional<std::vector<size_t>>> drops = {std::nullopt};
    std::map<std::string, std::vector<size_t>> sections;
    for (const auto& other : found) {
      if (other.line == leaf.line) continue;
      drops.emplace_back(std::vector<size_t>{other.line});
      const std::string s = other.path.substr(0, other.path.find('.'));
      if (s != section && s != other.path) sections[s].push_back(other.line);
    }
    for (const auto& [_, l] : sections) drops.emplace_back(l);
    for (const auto& drop : drops) {
      for (const auto& v : edits(key, value)) {
        auto edited = lines;
        edited[leaf.line].replace(leaf.begin, leaf.end - leaf.begin, v);
        if (drop) {
          for (size_t l : *drop) edited[l] = "";
        }
        auto r = diff(a, PlanSource{join(edited), file, dir}, cat, report::Format::kJson);
        if (!r) {  // not a valid plan: try the next edit
          if (!drop) why += v + ": " + r.error().message + "; ";
          continue;
        }
        tried = true;
        EXPECT_TRUE(reported(json::parse(r->text)["inputs"], leaf.path))
            << file << ": " << leaf.path << " " << value << " -> " << v << " is not reported";
        break;
      }
      if (tried) break;
    }
    EXPECT_TRUE(tried) << file << ": no edit of " << leaf.path << " (" << value
                       << ") gives a valid plan; add one to edits() (last: " << why << ")";
  }
}

TEST(DiffEveryInput, Gpt3A100) { every_value_is_compared("gpt3-175b-a100.yaml"); }
TEST(DiffEveryInput, Gpt3H100Owned) { every_value_is_compared("gpt3-175b-h100-owned.yaml"); }
TEST(DiffEveryInput, DeepSeekV3) { every_value_is_compared("deepseek-v3-h800.yaml"); }
TEST(DiffEveryInput, Llama3405b) { every_value_is_compared("llama3-405b-16k.yaml"); }
TEST(DiffEveryInput, ServingChat) { every_value_is_compared("serving-llama3-70b-chat.yaml"); }

// The three inputs of the issue: each moves the total and is named with both values.
TEST(DiffEveryInput, ReliabilityStorageAndOperationsInputsAreNamed) {
  const auto& cat = testing::builtin_catalog();
  const std::string dir = std::string(AICOST_SOURCE_DIR) + "/examples";
  const std::string text = read(dir + "/gpt3-175b-a100.yaml");
  std::string b =
      std::regex_replace(text, std::regex("checkpoint_interval: 2h"), "checkpoint_interval: 30min");
  b = std::regex_replace(b, std::regex("engineers: 3"), "engineers: 5");
  b += "reliability:\n  restart_time: 20min\n";
  auto r = diff(PlanSource{text, "a.yaml", dir}, PlanSource{b, "b.yaml", dir}, cat,
                report::Format::kJson);
  ASSERT_TRUE(r) << r.error().what();
  const json j = json::parse(r->text);
  std::map<std::string, std::pair<json, json>> in;
  for (const auto& x : j["inputs"]) in[x["path"]] = {x["a"], x["b"]};
  EXPECT_EQ(in["storage.checkpoint_interval"], std::make_pair(json("2h"), json("30min")));
  EXPECT_EQ(in["operations.engineers"], std::make_pair(json("3"), json("5")));
  EXPECT_EQ(in["reliability.restart_time"], std::make_pair(json(nullptr), json("20min")));
  EXPECT_EQ(in.size(), 3u);
  for (const auto& o : j["outputs"]) {
    if (o["metric"] == "cost.categories.operations") {
      EXPECT_GT(o["delta"].get<double>(), 0);
    }
  }
}

TEST(DiffEveryInput, ATrainingAndAServingPlanAreAnInputError) {
  const auto& cat = testing::builtin_catalog();
  const std::string dir = std::string(AICOST_SOURCE_DIR) + "/examples";
  auto r = diff(PlanSource{read(dir + "/gpt3-175b-a100.yaml"), "t.yaml", dir},
                PlanSource{read(dir + "/serving-llama3-70b-chat.yaml"), "s.yaml", dir}, cat,
                report::Format::kJson);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().message.find("s.yaml is a serving plan"), std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace aicost::api
