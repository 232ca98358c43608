// The optimiser on serving plans: every serving lever's saving is the difference of two serving
// estimates the test makes itself (the plan edited by hand, line by line, and estimated as
// `aicost estimate` does: parse_serving_plan and serving::estimate_fleet), the SLA and capacity
// buffer red lines reject what they should, levers that cannot apply or be priced say why, and
// the emitted plan re-estimates to the combined figure to the cent.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "aicost/config/serving_plan.h"
#include "aicost/optimize/optimize.h"
#include "aicost/serving/fleet.h"
#include "optimize_support.h"
#include "temp_dir.h"

namespace aicost::optimize {
namespace {

using testing::as_map;
using testing::lever;
using testing::read_text;
using testing::run_optimize;
using testing::source_path;

const char* kChat = "examples/serving-llama3-70b-chat.yaml";
const char* kEight = "tests/plans/optimize-serving-llama3-8b.yaml";
const char* kSteady = "tests/plans/optimize-serving-llama3-8b-steady.yaml";

const OptimizeResult& result(const std::string& plan) { return testing::cached_optimize(plan); }

std::vector<Lever> only(std::initializer_list<const char*> ids) {
  std::vector<Lever> out;
  for (const auto& l : serving_levers()) {
    for (const char* id : ids) {
      if (l.id == id) out.push_back(l);
    }
  }
  return out;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Sets `a.b.c: value` in a plan written in block style, two spaces a level (examples/ and
// tests/plans/ are), adding the sections on the way when absent; no value removes the key's line
// and the lines under it. Line-based on purpose: it shares no code with the YAML editor it checks.
std::string hand_set(const std::string& text, const std::string& key,
                     const std::optional<std::string>& value) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::vector<std::string> path;
  std::istringstream parts(key);
  for (std::string p; std::getline(parts, p, '.');) path.push_back(p);
  auto indent_of = [](const std::string& l) { return l.find_first_not_of(' '); };
  // The block of a key at line `at`: the lines after it indented deeper (blank lines included).
  auto block_end = [&](size_t at, size_t indent) {
    size_t end = at + 1;
    while (end < lines.size() && (lines[end].empty() || indent_of(lines[end]) > indent)) ++end;
    return end;
  };
  size_t begin = 0, end = lines.size(), indent = 0;
  for (size_t i = 0; i < path.size(); ++i) {
    const std::string want = std::string(indent, ' ') + path[i] + ":";
    size_t found = end;
    for (size_t j = begin; j < end; ++j) {
      if (lines[j] == want || lines[j].rfind(want + " ", 0) == 0) found = j;
    }
    const bool last = i + 1 == path.size();
    if (found == end) {
      if (!value) break;
      lines.insert(lines.begin() + static_cast<long>(end), want + (last ? " " + *value : ""));
      begin = end + 1;
      end = begin;
    } else if (last) {
      if (value) {
        lines[found] = want + " " + *value;
      } else {
        lines.erase(lines.begin() + static_cast<long>(found),
                    lines.begin() + static_cast<long>(block_end(found, indent)));
      }
    } else {
      begin = found + 1;
      end = block_end(found, indent);
    }
    indent += 2;
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::string apply_by_hand(std::string text, const Change& c) {
  for (const auto& e : c) text = hand_set(text, e.key, e.value);
  return text;
}

// A serving plan's monthly cost from its text, as `aicost estimate` makes it.
double serving_total(const std::string& text, const std::string& base_dir) {
  auto plan =
      config::parse_serving_plan(text, "hand-edited.yaml", base_dir, testing::builtin_catalog());
  EXPECT_TRUE(plan) << (plan ? "" : plan.error().what()) << "\n" << text;
  if (!plan) return -1;
  const auto fleet = serving::estimate_fleet(*plan, plan->series);
  EXPECT_TRUE(fleet.best) << text;
  return fleet.monthly.value();
}

TEST(ServingHandSet, EditsNestedKeysByLine) {
  const std::string text =
      "a: 1\nserving:\n  gpu: x\n  autoscaling:\n    cold_start: 4min\n  sla:\n    ttft: 1s\n";
  EXPECT_EQ(hand_set(text, "serving.autoscaling.policy", "reactive"),
            "a: 1\nserving:\n  gpu: x\n  autoscaling:\n    cold_start: 4min\n    policy: "
            "reactive\n  sla:\n    ttft: 1s\n");
  EXPECT_EQ(
      hand_set(text, "serving.gpu", "y"),
      "a: 1\nserving:\n  gpu: y\n  autoscaling:\n    cold_start: 4min\n  sla:\n    ttft: 1s\n");
  EXPECT_EQ(hand_set(text, "serving.autoscaling", std::nullopt),
            "a: 1\nserving:\n  gpu: x\n  sla:\n    ttft: 1s\n");
  EXPECT_EQ(hand_set(text, "pricing.spot_share", "50%"), text + "pricing:\n  spot_share: 50%\n");
  EXPECT_EQ(hand_set(text, "serving.speculative.draft_tokens", "4"),
            "a: 1\nserving:\n  gpu: x\n  autoscaling:\n    cold_start: 4min\n  sla:\n    ttft: 1s\n"
            "  speculative:\n    draft_tokens: 4\n");
}

void expect_saving_is_difference(const std::string& plan, const LeverResult& l) {
  testing::expect_saving_is_difference(plan, l, apply_by_hand, serving_total);
}

struct Case {
  const char* plan;
  const char* lever;
  // What the lever must change, written here; empty: chosen among candidates (checked apart).
  std::map<std::string, std::optional<std::string>> change;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.lever << " on " << c.plan; }

class ServingLeverSaving : public ::testing::TestWithParam<Case> {};

TEST_P(ServingLeverSaving, EqualsTheDifferenceOfTwoServingEstimates) {
  const Case& c = GetParam();
  const LeverResult& l = lever(result(c.plan), c.lever);
  ASSERT_TRUE(l.status == LeverStatus::kAccepted || l.status == LeverStatus::kRejected ||
              l.status == LeverStatus::kNoSaving)
      << c.lever << ": " << to_string(l.status) << ": " << l.why;
  if (!c.change.empty()) {
    EXPECT_EQ(as_map(l.change), c.change) << describe(l.change);
  }
  expect_saving_is_difference(c.plan, l);
  ASSERT_TRUE(l.sla_effect);
  EXPECT_FALSE(l.wall_days_delta) << "a serving plan has no wall time: sla_effect instead";
}

INSTANTIATE_TEST_SUITE_P(
    Levers, ServingLeverSaving,
    ::testing::Values(Case{kEight, "quantization", {{"serving.precision", "fp8"}}},
                      // 256 since Hopper's decode share rose to 87 % (h/serve8): the TPOT SLA
                      // holds at twice the batch.
                      Case{kEight, "batch-limit", {{"serving.max_batch", "256"}}},
                      Case{kEight, "prefix-caching", {{"serving.prefix_cache_hit", "30%"}}},
                      Case{kEight,
                           "speculative-decoding",
                           {{"serving.speculative.draft_tokens", "4"},
                            {"serving.speculative.acceptance", "70%"},
                            {"serving.speculative.draft_cost", "5%"}}},
                      Case{kEight, "autoscaling", {}}, Case{kEight, "spot-mix", {}},
                      Case{kEight, "gpu-type", {}},
                      Case{kEight,
                           "cdn",
                           {{"serving.response_cache_hit", "10%"},
                            {"serving.response_cache_cost", "300USD/month"}}},
                      Case{kChat, "autoscaling", {{"serving.autoscaling.policy", "reactive"}}},
                      Case{kChat, "spot-mix", {{"pricing.spot_share", "50%"}}},
                      Case{kChat, "gpu-type", {}},
                      Case{kSteady, "quantization", {{"serving.precision", "fp8"}}},
                      Case{kSteady, "speculative-decoding", {}},
                      Case{kSteady, "prefix-caching", {{"serving.prefix_cache_hit", "30%"}}}),
    [](const ::testing::TestParamInfo<Case>& i) {
      const std::string plan = i.param.plan;
      std::string name = plan == kChat ? "chat_" : plan == kEight ? "eight_" : "steady_";
      for (const char* p = i.param.lever; *p; ++p) name += *p == '-' ? '_' : *p;
      return name;
    });

// Autoscaling weighs every other policy over the month and proposes the cheapest inside the red
// lines: on the chat example the scheduled policy is cheapest but misses the SLA for 11.7 % of
// requests (the day-17 spike it cannot foresee), above the 1 % limit, so reactive is proposed.
TEST(ServingAutoscaling, ProposesTheCheapestPolicyInsideTheRedLines) {
  const auto& l = lever(result(kChat), "autoscaling");
  EXPECT_EQ(l.status, LeverStatus::kAccepted);
  const std::string text = read_text(source_path(kChat));
  const double scheduled = serving_total(hand_set(text, "serving.autoscaling.policy", "scheduled"),
                                         source_path("examples"));
  EXPECT_LT(scheduled, *l.total_usd) << "scheduled is cheaper, but crosses the SLA line";
  bool listed = false;
  for (const auto& n : l.notes)
    listed |= contains(n, "weighed scheduled") && contains(n, "11.66 % of requests over the SLA");
  EXPECT_TRUE(listed);
  ASSERT_TRUE(l.sla_effect && l.sla_effect->over_sla_share);
  EXPECT_LE(*l.sla_effect->over_sla_share, 0.01);
}

// The SLA red line: with at most 0.01 % of requests allowed over the SLA, every policy that
// scales crosses it (reactive misses 0.03 %: replicas still starting when the load rises), so
// the lever is rejected, with the line and by how much.
TEST(ServingRedLines, RequestsOverTheSlaRejectAutoscaling) {
  Guardrails g;
  g.max_over_sla = 0.0001;
  const auto res = run_optimize(source_path(kChat), g, only({"autoscaling"}));
  const auto& l = lever(res, "autoscaling");
  EXPECT_EQ(l.status, LeverStatus::kRejected);
  EXPECT_TRUE(contains(l.red_line.why, "of requests over the SLA")) << l.red_line.why;
  EXPECT_TRUE(contains(l.red_line.why, "is above the limit 0.01 % by")) << l.red_line.why;
  EXPECT_TRUE(res.combined.levers.empty());
}

// The capacity buffer: the steady plan runs 4 replicas of bf16 at batch 64 with at least 10 % to
// spare over its 38 requests/s; speculative decoding (4 draft tokens) serves fewer requests/s a
// replica at that load, 8.1 % over it, below the 10 % buffer. (At 36 requests/s, the plan's rate
// until h/serve8, Hopper's faster decode share, 87 % of HBM where 64 % was its cap, fits the load
// on 3 replicas with 3.4 % to spare and the red line had nothing to show; 38 requests/s needs 4
// again. FP8, the example until 2026-12-02, keeps more spare: the per-sequence and per-layer
// costs weigh on bf16 too.)
TEST(ServingRedLines, CapacityBufferRejectsASmallerFleet) {
  const auto& res = result(kSteady);
  const auto& base = *res.baseline.serving;
  EXPECT_EQ(base.deployment().replicas, 4);
  EXPECT_GE(serving::capacity_buffer(base.plan, base.fleet), 0.10);
  const auto& l = lever(res, "speculative-decoding");
  EXPECT_EQ(l.status, LeverStatus::kRejected);
  ASSERT_TRUE(l.sla_effect);
  EXPECT_LT(l.sla_effect->capacity_buffer, 0.10);
  EXPECT_TRUE(contains(l.red_line.why,
                       "capacity buffer 8.1 % (spare capacity within the SLA over the "
                       "38 requests/s served) is below the minimum 10 % by 1.9 pp"))
      << l.red_line.why;
  // The same change passes with a 1 % buffer.
  Guardrails g;
  g.capacity_buffer = 0.01;
  EXPECT_EQ(lever(run_optimize(source_path(kSteady), g, only({"speculative-decoding"})),
                  "speculative-decoding")
                .status,
            LeverStatus::kAccepted);
}

// Levers that cannot apply or be priced say why, once, and carry no saving.
TEST(ServingLevers, NotApplicableAndNotPricedSayWhy) {
  for (const char* plan : {kChat, kEight, kSteady}) {
    for (const auto& l : result(plan).levers) {
      if (l.status == LeverStatus::kNotApplicable || l.status == LeverStatus::kNotPriced ||
          l.status == LeverStatus::kNoSaving) {
        EXPECT_FALSE(l.why.empty()) << l.id << " on " << plan;
      }
      if (l.status == LeverStatus::kNotApplicable || l.status == LeverStatus::kNotPriced) {
        EXPECT_FALSE(l.saving_usd.has_value()) << l.id << " on " << plan;
      }
    }
  }
  const auto& chat = result(kChat);
  EXPECT_EQ(lever(chat, "quantization").status, LeverStatus::kNotApplicable);
  EXPECT_EQ(
      lever(chat, "quantization").why,
      "h100-sxm-80gb has no tensor cores below fp8 (FP8, INT8, FP4) for the deployment to move to");
  EXPECT_EQ(lever(chat, "prefix-caching").status, LeverStatus::kNotPriced);
  EXPECT_TRUE(contains(lever(chat, "prefix-caching").why, "serving.levers.prefix_cache_hit"));
  EXPECT_EQ(lever(chat, "speculative-decoding").status, LeverStatus::kNotPriced);
  EXPECT_TRUE(contains(lever(chat, "speculative-decoding").why, "acceptance rate"));
  EXPECT_EQ(lever(chat, "cdn").status, LeverStatus::kNotApplicable);
  EXPECT_EQ(lever(chat, "cdn").why,
            "the plan gives no hit ratio for a response cache (serving.levers.response_cache_hit)");
  const auto& steady = result(kSteady);
  EXPECT_EQ(lever(steady, "autoscaling").status, LeverStatus::kNotApplicable);
  EXPECT_TRUE(contains(lever(steady, "autoscaling").why, "no traffic profile"));
  EXPECT_EQ(lever(steady, "spot-mix").status, LeverStatus::kNotPriced);
  EXPECT_TRUE(contains(lever(steady, "spot-mix").why,
                       "spot reclaims are simulated over the traffic profile"));
}

// Every serving lever of the contract is reported once.
TEST(ServingLevers, EveryLeverIsReportedOnce) {
  const auto& res = result(kChat);
  EXPECT_EQ(res.levers.size(), serving_levers().size());
  for (const auto& l : serving_levers()) {
    int n = 0;
    for (const auto& r : res.levers) n += r.id == l.id;
    EXPECT_EQ(n, 1) << l.id;
  }
}

// Spot on a smaller fleet saves less than on the static one: autoscaling and spot-mix overlap,
// and the combined plan, estimated as one plan (by hand here), is not the sum of their savings.
TEST(ServingCombined, IsOnePlanNotTheSumOfSavings) {
  const auto res = run_optimize(source_path(kChat), {}, only({"autoscaling", "spot-mix"}));
  const auto& c = res.combined;
  ASSERT_EQ(c.levers.size(), 2u);
  const double sum = *lever(res, "autoscaling").saving_usd + *lever(res, "spot-mix").saving_usd;
  EXPECT_NEAR(c.sum_of_savings, sum, 0.01);
  EXPECT_LT(c.saving_usd, sum - 1000);
  const std::string text = read_text(source_path(kChat));
  EXPECT_NEAR(c.total_usd, serving_total(apply_by_hand(text, c.change), source_path("examples")),
              0.005);
  ASSERT_TRUE(c.sla_effect);
}

// --emit-plan writes the combined serving plan; `aicost estimate` on that file (load_serving_plan
// and the fleet, as estimate_serving does) gives the combined total to the cent.
TEST(ServingEmitPlan, EstimatesToTheCombinedTotalToTheCent) {
  for (const char* plan : {kChat, kEight, kSteady}) {
    const auto& res = result(plan);
    auto editor = config::PlanEditor::open(source_path(plan), testing::builtin_catalog());
    ASSERT_TRUE(editor);
    testing::TempDir dir;
    auto text = editor->emit(res.combined.change, dir.path().string(), "test");
    ASSERT_TRUE(text) << text.error().what();
    const std::string path = dir.write("combined.yaml", *text);
    auto loaded = config::load_serving_plan(path, testing::builtin_catalog());
    ASSERT_TRUE(loaded) << loaded.error().what();
    const double total = serving::estimate_fleet(*loaded, loaded->series).monthly.value();
    EXPECT_EQ(std::round(total * 100), std::round(res.combined.total_usd * 100)) << plan;
    EXPECT_GT(res.combined.saving_usd, 0) << plan;
  }
}

}  // namespace
}  // namespace aicost::optimize
