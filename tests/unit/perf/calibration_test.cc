// The fit of calibrated parameters and grouped cross-validation (perf/calibration.h), on tiny
// synthetic sets whose true parameters are known.
#include "aicost/perf/calibration.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>

#include "aicost/config/cross_validation.h"
#include "test_support.h"

namespace aicost::perf {
namespace {

// A closed-form stand-in for the step model, in the four training parameters:
//   t = a / (gemm_max * d / (d + gemm_half_dim)) + b * layer_overhead + c * step_overhead.
// The coefficients differ enough between rows (narrow and wide GEMMs, few and many layers and
// steps) that only one set of values reproduces every row.
struct Row {
  const char* generation;
  double a, d, b, c;
};
double model(const Row& r, const catalog::EfficiencyProfile& e) {
  return r.a / (e.gemm_max * r.d / (r.d + e.gemm_half_dim)) + r.b * e.layer_overhead.value() +
         r.c * e.step_overhead.value();
}

const Row kRows[] = {
    {"ampere", 1.0, 64, 100, 1},  {"ampere", 2.0, 8192, 10, 4},  {"ampere", 0.5, 256, 400, 2},
    {"ampere", 3.0, 1024, 50, 8}, {"hopper", 1.0, 128, 200, 1},  {"hopper", 4.0, 4096, 20, 2},
    {"hopper", 0.2, 96, 800, 1},  {"hopper", 1.5, 2048, 80, 16},
};

// True values, on the lattices of training_fit_parameters().
catalog::EfficiencyProfile truth(const std::string& generation) {
  catalog::EfficiencyProfile e;
  e.generation = generation;
  e.gemm_max = generation == "ampere" ? 0.77 : 0.63;
  e.gemm_half_dim = 96;
  e.layer_overhead = core::Seconds(0.4e-3);
  e.step_overhead = core::Seconds(0.03);
  return e;
}

std::vector<Observation> synthetic(const std::string& group_of_hopper = "b") {
  std::vector<Observation> out;
  for (const auto& r : kRows) {
    Observation o;
    o.name = r.generation;
    o.generation = r.generation;
    o.group = o.generation == "hopper" ? group_of_hopper : "a";
    o.regime = o.generation;
    o.profile.generation = r.generation;
    o.measured = model(r, truth(r.generation));
    o.predict = [r](const catalog::EfficiencyProfile& e) { return model(r, e); };
    out.push_back(o);
  }
  return out;
}

// The training parameters without their per-generation caps (the synthetic truths are not chips).
std::vector<FitParameter> uncapped() {
  auto params = training_fit_parameters();
  for (auto& p : params) p.hi_for.clear();
  params[1].lo = 0;  // gemm_half_dim: the synthetic model has no microbenchmarks either
  // The synthetic model has no MoE layers: moe_sync_expert_overhead would be one more flat
  // direction for the simplex (fp8_gemm_relative already is one), so it is left out.
  params.erase(
      std::remove_if(params.begin(), params.end(),
                     [](const FitParameter& p) { return p.key == "moe_sync_expert_overhead"; }),
      params.end());
  return params;
}

std::vector<const Observation*> pointers(const std::vector<Observation>& obs) {
  std::vector<const Observation*> out;
  for (const auto& o : obs) out.push_back(&o);
  return out;
}

TEST(Fit, RecoversTheParametersOfASyntheticModel) {
  const auto obs = synthetic();
  const auto params = uncapped();
  const auto f = fit(pointers(obs), params);
  EXPECT_NEAR(f.value(0, "ampere"), 0.77, 1e-9);
  EXPECT_NEAR(f.value(0, "hopper"), 0.63, 1e-9);
  EXPECT_NEAR(f.value(1, "ampere"), 96, 1e-9);
  EXPECT_NEAR(f.value(2, "ampere"), 0.4e-3, 1e-12);
  EXPECT_NEAR(f.value(3, "ampere"), 0.03, 1e-12);
  EXPECT_NEAR(f.loss, 0, 1e-12);
  // Six numbers: gemm_max per generation, four shared (fp8_gemm_relative among them, though
  // these synthetic rows have no FP8 and leave it where it starts).
  const auto numbers = fitted_numbers(f, params);
  ASSERT_EQ(numbers.size(), 6u);
  EXPECT_EQ(numbers[0].name, "gemm_max[ampere]");
  EXPECT_EQ(numbers[1].name, "gemm_max[hopper]");
  EXPECT_EQ(numbers[2].name, "gemm_half_dim");
}

// A generation without rows takes the pooled value: gemm_max fitted as one value for all rows,
// which lies between the two generations' own values (at one end or the other: the loss is L1).
TEST(Fit, GenerationWithoutRowsTakesThePooledValue) {
  const auto obs = synthetic();
  const auto params = uncapped();
  const auto f = fit(pointers(obs), params);
  const double pooled = f.value(0, "blackwell");
  EXPECT_GE(pooled, 0.63);
  EXPECT_LE(pooled, 0.77);
  catalog::EfficiencyProfile b;
  b.generation = "blackwell";
  EXPECT_DOUBLE_EQ(f.apply(b, params).gemm_max, pooled);
  const auto listed = fitted_numbers(f, params, {"ampere", "blackwell"});
  EXPECT_FALSE(listed[0].pooled);
  EXPECT_TRUE(listed[1].pooled);
}

// min_informing_rows: a generation gets a value of its own only from that many of its rows that
// the value informs (a 10 % change moves the prediction by at least min_elasticity x 10 %). Each
// synthetic generation has 4 rows, all of whose times gemm_max governs in part but none in whole
// (every row also pays layer and step overheads).
TEST(Fit, GenerationWithTooFewInformingRowsTakesThePooledValue) {
  const auto obs = synthetic();
  auto params = uncapped();
  params[0].min_informing_rows = 4;
  params[0].min_elasticity = 0;  // every row informs: 4 of 4, each generation its own value
  auto f = fit(pointers(obs), params);
  EXPECT_NEAR(f.value(0, "ampere"), 0.77, 1e-9);
  EXPECT_NEAR(f.value(0, "hopper"), 0.63, 1e-9);
  params[0].min_informing_rows = 5;  // more rows than either generation has
  f = fit(pointers(obs), params);
  EXPECT_DOUBLE_EQ(f.value(0, "ampere"), f.value(0, "blackwell"));
  EXPECT_DOUBLE_EQ(f.value(0, "hopper"), f.value(0, "blackwell"));
  params[0].min_informing_rows = 4;
  params[0].min_elasticity = 0.999;  // no row's time is all GEMM
  f = fit(pointers(obs), params);
  EXPECT_DOUBLE_EQ(f.value(0, "ampere"), f.value(0, "blackwell"));
  EXPECT_DOUBLE_EQ(f.value(0, "hopper"), f.value(0, "blackwell"));
}

// prior_rows: a value the rows leave open goes to the start, one they determine does not move.
// Ampere's rows time 1 / x (x = 0.5 measured); cdna3's rows do not depend on x at all, so without
// a prior cdna3 keeps wherever the search leaves it (the pooled 0.5, ampere's value).
TEST(Fit, PriorDecidesOnlyWhatTheRowsLeaveOpen) {
  std::vector<Observation> obs;
  for (const char* gen : {"ampere", "ampere", "ampere", "cdna3", "cdna3"}) {
    Observation o;
    o.name = o.generation = o.group = o.regime = o.profile.generation = gen;
    const bool informed = o.generation == "ampere";
    o.measured = informed ? 2.0 : 1.0;
    o.rate = false;
    o.predict = [informed](const catalog::EfficiencyProfile& e) {
      return informed ? 1.0 / e.gemm_max : 1.0;
    };
    obs.push_back(o);
  }
  std::vector<FitParameter> params = {
      {"x", true, core::UnitKind::kPercent, 0.30, 0.95, 0.01, 0.70,
       [](const catalog::EfficiencyProfile& e) { return e.gemm_max; },
       [](catalog::EfficiencyProfile& e, double v) { e.gemm_max = v; }}};
  auto f = fit(pointers(obs), params);
  EXPECT_NEAR(f.value(0, "ampere"), 0.50, 1e-9);
  EXPECT_NEAR(f.value(0, "cdna3"), 0.50, 1e-9);  // undetermined: the search's starting point
  params[0].prior_rows = 0.1;
  f = fit(pointers(obs), params);
  EXPECT_NEAR(f.value(0, "ampere"), 0.50, 1e-9);  // 3 rows against a tenth of one
  EXPECT_NEAR(f.value(0, "cdna3"), 0.70, 1e-9);   // the prior's value
  // The loss counts the prior: ampere is 0.5 off 0.7 in log terms, a tenth of a row's weight.
  EXPECT_NEAR(f.loss, 0.1 * std::log(0.70 / 0.50) / obs.size(), 1e-9);
}

TEST(Fit, NoRowsLeavesEveryParameterAtItsStart) {
  const auto params = training_fit_parameters();
  const auto f = fit({}, params);
  for (size_t k = 0; k < params.size(); ++k)
    EXPECT_DOUBLE_EQ(f.value(k, "hopper"), params[k].start);
}

// A row the model cannot predict (NaN, 0) costs as much as a 100x error: the fit still moves
// the other parameters, and never to a value that makes a predictable row unpredictable.
TEST(Fit, UnpredictableRowsCostAFactorOfAHundred) {
  auto obs = synthetic();
  Observation never = obs[0];
  never.predict = [](const catalog::EfficiencyProfile&) { return std::nan(""); };
  obs.push_back(never);
  const auto f = fit(pointers(obs), uncapped());
  EXPECT_NEAR(f.value(0, "hopper"), 0.63, 1e-9);
  EXPECT_NEAR(f.loss, std::log(100.0) / obs.size(), 1e-12);
}

// Cross-validation predicts each group with the fit that never saw it. Group "c" (the hopper
// rows) is measured twice as fast as the model can explain; held out, it is predicted from the
// ampere rows alone: the true shared values and the pooled gemm_max (= ampere's), so its error is
// the closed form 0.5 * (t(hopper at ampere's gemm_max)) / t_true - 1 per row, not the in-sample
// error.
TEST(CrossValidate, HeldOutRowsArePredictedByTheFitWithoutTheirGroup) {
  auto obs = synthetic("c");
  for (auto& o : obs) {
    if (o.group == "c") o.measured *= 0.5;  // a time measured half as long
  }
  const auto params = uncapped();
  const auto cv = cross_validate(obs, params);
  ASSERT_EQ(cv.groups, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(cv.folds[1].rows, 4);
  // Fold without "c": the ampere rows only, recovered exactly; hopper takes the pooled value,
  // which with only ampere rows is ampere's.
  EXPECT_NEAR(cv.folds[1].value(0, "hopper"), 0.77, 1e-9);
  for (size_t i = 0; i < obs.size(); ++i) {
    if (obs[i].group != "c") continue;
    auto e = truth("hopper");
    e.gemm_max = 0.77;
    EXPECT_NEAR(cv.held_out[i], obs[i].predict(e), 1e-12) << i;
    // In-sample, the fit saw these rows and halved their error at least.
    EXPECT_LT(std::fabs(cv.in_sample[i] / obs[i].measured - 1),
              std::fabs(cv.held_out[i] / obs[i].measured - 1));
  }
}

// A cap holds for its generation, and for the pooled value that stands in for generations
// without rows; the other generation is free. Hopper's true 0.63 lies under a cap of 0.60.
TEST(Fit, CapsBoundTheirGenerationAndThePooledValue) {
  const auto obs = synthetic();
  auto params = uncapped();
  params[0].hi_for = {{"hopper", 0.60}};
  const auto f = fit(pointers(obs), params);
  EXPECT_NEAR(f.value(0, "hopper"), 0.60, 1e-9);
  EXPECT_LE(f.value(0, "blackwell"), 0.60 + 1e-9);
  EXPECT_GT(f.value(0, "ampere"), 0.60);
  EXPECT_GT(f.loss, 0);
}

// The real step model on the dev set's layouts, with measurements made by the model itself at
// known values: the fit finds those values (the procedure is sound where the model is true).
// Two sets of values, inside the ranges and away from the starts.
TEST(Fit, RecoversTheStepModelsOwnParameters) {
  auto run = config::load_observations(
      std::string(AICOST_SOURCE_DIR) + "/data/validation/training-dev.csv",
      testing::builtin_catalog());
  ASSERT_TRUE(run) << run.error().what();
  const auto params = run->parameters;
  struct Truth {
    double ampere, hopper, half_dim, layer, step;
  };
  for (const Truth& t :
       {Truth{0.80, 0.66, 96, 0.5e-3, 0.04}, Truth{0.72, 0.60, 200, 0.15e-3, 0.12}}) {
    for (auto& o : run->observations) {
      auto e = o.profile;
      e.gemm_max = o.generation == "ampere" ? t.ampere : t.hopper;
      e.gemm_half_dim = t.half_dim;
      e.layer_overhead = core::Seconds(t.layer);
      e.step_overhead = core::Seconds(t.step);
      o.measured = o.predict(e);
    }
    std::vector<const Observation*> rows;
    for (const auto& o : run->observations) rows.push_back(&o);
    const auto f = fit(rows, params);
    EXPECT_NEAR(f.value(0, "ampere"), t.ampere, 1e-9);
    EXPECT_NEAR(f.value(0, "hopper"), t.hopper, 1e-9);
    EXPECT_NEAR(f.value(1, "ampere"), t.half_dim, 1e-9);
    EXPECT_NEAR(f.value(2, "ampere"), t.layer, 1e-12);
    EXPECT_NEAR(f.value(3, "ampere"), t.step, 1e-12);
    // fp8_gemm_relative stays the shipped profiles' (hopper and blackwell: 82 %).
    EXPECT_NEAR(f.value(4, "hopper"),
                (**testing::builtin_catalog().efficiency("hopper")).fp8_gemm_relative, 1e-9);
    EXPECT_NEAR(f.loss, 0, 1e-12);
  }
}

}  // namespace
}  // namespace aicost::perf
