// Calibration to a user's own runs (perf/user_calibration.h), on synthetic rows whose true values
// are known: what is fitted, what is held at the shipped values, how rows are held out, and the
// refusals.
#include "aicost/perf/user_calibration.h"

#include <gtest/gtest.h>

#include <cmath>

namespace aicost::perf {
namespace {

// A closed-form stand-in for the step model: t = a / (gemm_max * d / (d + gemm_half_dim))
// + b * layer_overhead + c * step_overhead (as in calibration_test.cc).
double model(double a, double d, double b, double c, const catalog::EfficiencyProfile& e) {
  return a / (e.gemm_max * d / (d + e.gemm_half_dim)) + b * e.layer_overhead.value() +
         c * e.step_overhead.value();
}

// The "shipped" profile: gemm_max 66 %, gemm_half_dim 128, 0.3 ms per layer, 50 ms per step.
catalog::EfficiencyProfile shipped(const std::string& generation) {
  catalog::EfficiencyProfile e;
  e.generation = generation;
  e.gemm_max = 0.66;
  e.gemm_half_dim = 128;
  e.layer_overhead = core::Seconds(0.3e-3);
  e.step_overhead = core::Seconds(0.05);
  return e;
}

// `n` rows of `generation` whose cluster really runs at `truth` (shipped otherwise), in the
// groups named by `group(i)`. Coefficients vary with i so that the rows differ.
std::vector<Observation> rows(const std::string& generation, int n,
                              const catalog::EfficiencyProfile& truth,
                              const std::function<std::string(int)>& group) {
  std::vector<Observation> out;
  for (int i = 0; i < n; ++i) {
    const double a = 1.0 + 0.37 * (i % 7), d = 64.0 * (1 + i % 5), b = 500.0 * (1 + (i * 3) % 11),
                 c = 10.0 * (1 + i % 4);
    Observation o;
    o.name = generation + " run " + std::to_string(i + 1);
    o.generation = generation;
    o.group = group(i);
    o.regime = generation + "/bf16/dense";
    o.profile = shipped(generation);
    o.measured = model(a, d, b, c, truth);
    o.predict = [=](const catalog::EfficiencyProfile& e) { return model(a, d, b, c, e); };
    out.push_back(o);
  }
  return out;
}

auto one_group = [](int) { return std::string("my cluster"); };

// Six runs of one GPU whose GEMMs reach 60 %, not the shipped 66 %: gemm_max[hopper] alone is
// fitted, from the shipped value, and lands on 60 % exactly (the rows are exact, the loss is 0
// there); the three shared values stay at the catalog's. Six rows in one group: each row is held
// out in turn, and the five others give 60 % again, so every cross-validated error is 0 while
// the shipped profile's error is the closed form model(shipped) / model(truth) - 1.
TEST(UserCalibration, FitsThePerGenerationValueFromTheShippedOne) {
  auto truth = shipped("hopper");
  truth.gemm_max = 0.60;
  const auto obs = rows("hopper", 6, truth, one_group);
  auto c = calibrate(obs, training_fit_parameters());
  ASSERT_TRUE(c) << c.error().what();
  ASSERT_EQ(c->parameters.size(), 1u);
  EXPECT_EQ(c->parameters[0].key, "gemm_max");
  EXPECT_DOUBLE_EQ(c->parameters[0].start, 0.66);
  EXPECT_NEAR(c->cv.all.value(0, "hopper"), 0.60, 1e-9);
  // The three shared values, fp8_gemm_relative and moe_sync_expert_overhead (dense BF16 rows).
  ASSERT_EQ(c->held.size(), 5u);
  EXPECT_EQ(c->held[0].key, "gemm_half_dim");
  EXPECT_NE(c->held[0].reason.find("at least 40 rows of 3 source groups (here 6 rows of 1)"),
            std::string::npos)
      << c->held[0].reason;
  EXPECT_EQ(c->holdout, "row");
  EXPECT_EQ(c->cv.folds.size(), 6u);
  const auto before = calibration_cases(*c, CalibrationStage::kBefore);
  const auto after = calibration_cases(*c, CalibrationStage::kAfter);
  for (size_t i = 0; i < obs.size(); ++i) {
    EXPECT_NEAR(before[i].error(), obs[i].predict(shipped("hopper")) / obs[i].measured - 1, 1e-12);
    EXPECT_NEAR(after[i].error(), 0, 1e-9);
  }
}

TEST(UserCalibration, RefusesTooFewRowsOfAGenerationAndSaysHowManyToAdd) {
  const auto obs = rows("hopper", 2, shipped("hopper"), one_group);
  auto c = calibrate(obs, training_fit_parameters());
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, core::ErrorCode::kInvalidInput);
  EXPECT_NE(
      c.error().message.find("too few runs of hopper to calibrate: 2 rows, at least 3 needed"),
      std::string::npos)
      << c.error().message;
  EXPECT_NE(c.error().message.find("add 1 more hopper run"), std::string::npos);
  EXPECT_FALSE(calibrate({}, training_fit_parameters()));
}

// Rows that do not respond to a value (here: a model with no gemm_max in it) cannot determine it;
// it is held with the count, and with nothing left to fit the calibration is refused.
TEST(UserCalibration, HoldsValuesTheRowsDoNotRespondTo) {
  auto obs = rows("hopper", 5, shipped("hopper"), one_group);
  for (size_t i = 0; i < obs.size(); ++i) {
    if (i < 3) obs[i].predict = [](const catalog::EfficiencyProfile&) { return 1.0; };
  }
  auto c = calibrate(obs, training_fit_parameters());
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find(
                "gemm_max: the rows do not determine it (2 of 5 hopper rows respond to it; "
                "at least 3 needed)"),
            std::string::npos)
      << c.error().message;
}

// Many varied rows (>= 40 of >= 3 source groups, each group with rows of both generations):
// the shared values are fitted too, and the hold-out unit is the source group.
TEST(UserCalibration, ManyVariedRowsFitTheSharedValuesAndHoldOutSourceGroups) {
  auto truth_h = shipped("hopper"), truth_a = shipped("ampere");
  truth_h.gemm_max = 0.62;
  truth_a.gemm_max = 0.75;
  for (auto* t : {&truth_h, &truth_a}) t->layer_overhead = core::Seconds(0.4e-3);
  auto groups = [](int i) { return "paper " + std::to_string(i % 3); };
  auto obs = rows("hopper", 21, truth_h, groups);
  const auto more = rows("ampere", 21, truth_a, groups);
  obs.insert(obs.end(), more.begin(), more.end());
  auto c = calibrate(obs, training_fit_parameters());
  ASSERT_TRUE(c) << c.error().what();
  EXPECT_EQ(c->parameters.size(), 4u);
  // fp8_gemm_relative and moe_sync_expert_overhead stay: these dense BF16 rows do not respond.
  ASSERT_EQ(c->held.size(), 2u);
  EXPECT_EQ(c->held[0].key, "fp8_gemm_relative");
  EXPECT_EQ(c->held[1].key, "moe_sync_expert_overhead");
  EXPECT_EQ(c->holdout, "source group");
  EXPECT_EQ(c->cv.groups.size(), 3u);
  EXPECT_EQ(c->generations, (std::vector<std::string>{"ampere", "hopper"}));
  EXPECT_NEAR(c->cv.all.value(0, "hopper"), 0.62, 1e-9);
  EXPECT_NEAR(c->cv.all.value(0, "ampere"), 0.75, 1e-9);
  EXPECT_NEAR(c->cv.all.value(2, "hopper"), 0.4e-3, 1e-12);
}

// One group and more than 20 rows: five folds, row i in fold i mod 5 + 1.
TEST(UserCalibration, ManyRowsOfOneGroupAreHeldOutInFolds) {
  const auto obs = rows("hopper", 23, shipped("hopper"), one_group);
  auto c = calibrate(obs, training_fit_parameters());
  ASSERT_TRUE(c) << c.error().what();
  EXPECT_EQ(c->holdout, "5 folds");
  EXPECT_EQ(c->cv.groups.size(), 5u);
  EXPECT_EQ(c->observations[6].group, "fold 2");
}

}  // namespace
}  // namespace aicost::perf
