#include "aicost/perf/calibration.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "lattice_search.h"

namespace aicost::perf {

namespace {

constexpr const char* kPooled = "*";

// |ln(predicted / measured)|: symmetric in over- and under-prediction, robust to the odd outlier
// (an L1 loss). Capped at a factor of 100, the cost of a prediction the model cannot make (0,
// negative, NaN, infinite), so that no single row decides the fit.
const double kMaxError = std::log(100.0);
double log_error(double predicted, double measured) {
  if (!(predicted > 0) || !std::isfinite(predicted)) return kMaxError;
  return std::min(kMaxError, std::fabs(std::log(predicted / measured)));
}

// One fitted number: parameter `k` for generation `gen` ("*" = every generation).
struct Slot {
  size_t k;
  std::string gen;
};

// Fits the values of `slots` in `result` (from their current values); returns the loss.
double descend(FitResult& result, const std::vector<Slot>& slots,
               const std::vector<const Observation*>& rows, const std::vector<FitParameter>& params,
               int& evaluations) {
  auto loss = [&](const std::vector<double>& values) {
    for (size_t i = 0; i < slots.size(); ++i) result.values[slots[i].k][slots[i].gen] = values[i];
    double sum = 0;
    for (const auto* o : rows)
      sum += log_error(o->predict(result.apply(o->profile, params)), o->measured);
    for (size_t i = 0; i < slots.size(); ++i) {
      const auto& p = params[slots[i].k];
      if (p.prior_rows > 0) sum += p.prior_rows * std::fabs(std::log(values[i] / p.start));
    }
    return sum / rows.size();
  };
  std::vector<Axis> axes;
  std::vector<double> start;
  for (const auto& s : slots) {
    const auto& p = params[s.k];
    // A pooled value stands for every generation: it respects the lowest cap.
    double hi = p.hi;
    for (const auto& [gen, cap] : p.hi_for) {
      if (s.gen == gen || s.gen == kPooled) hi = std::min(hi, cap);
    }
    axes.push_back({p.lo, hi, p.step});
    start.push_back(result.values[s.k][s.gen]);
  }
  int n = 0;
  const auto best = minimise_on_lattice(axes, start, loss, &n);
  evaluations += n;
  return loss(best);
}

// Whether parameter `k` informs `o` under `fit` (FitParameter::min_elasticity): a 10 % change of
// its value moves the prediction by at least min_elasticity x ln(1.1).
bool informs(const Observation& o, const FitResult& fit, const std::vector<FitParameter>& params,
             size_t k) {
  const auto& p = params[k];
  auto profile = fit.apply(o.profile, params);
  const double base = o.predict(profile);
  p.set(profile, p.get(profile) * 1.1);
  const double moved = o.predict(profile);
  if (!(base > 0) || !(moved > 0) || !std::isfinite(base) || !std::isfinite(moved)) return false;
  return std::fabs(std::log(moved / base)) >= p.min_elasticity * std::log(1.1);
}

}  // namespace

double FitResult::value(size_t parameter, const std::string& generation) const {
  const auto& m = values.at(parameter);
  auto it = m.find(generation);
  return it != m.end() ? it->second : m.at(kPooled);
}

catalog::EfficiencyProfile FitResult::apply(catalog::EfficiencyProfile profile,
                                            const std::vector<FitParameter>& parameters) const {
  for (size_t k = 0; k < parameters.size(); ++k) {
    parameters[k].set(profile, value(k, profile.generation));
  }
  return profile;
}

std::vector<FittedNumber> fitted_numbers(const FitResult& fit,
                                         const std::vector<FitParameter>& parameters,
                                         const std::vector<std::string>& generations) {
  std::vector<FittedNumber> out;
  for (size_t k = 0; k < parameters.size(); ++k) {
    const auto& values = fit.values[k];
    if (!parameters[k].per_generation) {
      out.push_back({parameters[k].key, k, values.at(kPooled), false});
      continue;
    }
    std::vector<std::string> gens = generations;
    if (gens.empty()) {
      for (const auto& [g, v] : values) {
        if (g != kPooled) gens.push_back(g);
      }
    }
    for (const auto& g : gens) {
      out.push_back({parameters[k].key + "[" + g + "]", k, fit.value(k, g), !values.count(g)});
    }
  }
  return out;
}

FitResult fit(const std::vector<const Observation*>& rows,
              const std::vector<FitParameter>& parameters) {
  FitResult result;
  result.rows = static_cast<int>(rows.size());
  for (const auto& p : parameters) result.values.push_back({{kPooled, p.start}});
  if (rows.empty()) return result;
  // Stage 1: every parameter as one value.
  std::vector<Slot> pooled;
  for (size_t k = 0; k < parameters.size(); ++k) pooled.push_back({k, kPooled});
  descend(result, pooled, rows, parameters, result.evaluations);
  // Stage 2: per-generation parameters per generation present, from the pooled values.
  std::set<std::string> generations;
  for (const auto* o : rows) generations.insert(o->generation);
  std::vector<Slot> split;
  for (size_t k = 0; k < parameters.size(); ++k) {
    if (!parameters[k].per_generation) {
      split.push_back({k, kPooled});
      continue;
    }
    bool pooled_used = false;
    for (const auto& g : generations) {
      if (parameters[k].min_informing_rows > 0) {
        int n = 0;
        for (const auto* o : rows)
          n += o->generation == g && informs(*o, result, parameters, k) ? 1 : 0;
        if (n < parameters[k].min_informing_rows) {
          if (!pooled_used) split.push_back({k, kPooled});
          pooled_used = true;
          continue;
        }
      }
      result.values[k][g] = result.values[k][kPooled];
      split.push_back({k, g});
    }
  }
  result.loss = descend(result, split, rows, parameters, result.evaluations);
  // Stage 3: the pooled values again, with the shared ones as stage 2 left them, so that a
  // generation without rows gets the one value that fits every row best next to them.
  FitResult one = result;
  std::vector<Slot> per_generation;
  for (size_t k = 0; k < parameters.size(); ++k) {
    if (!parameters[k].per_generation) continue;
    one.values[k] = {{kPooled, result.values[k][kPooled]}};
    per_generation.push_back({k, kPooled});
  }
  if (!per_generation.empty()) {
    descend(one, per_generation, rows, parameters, result.evaluations);
    for (const auto& s : per_generation) result.values[s.k][kPooled] = one.values[s.k][kPooled];
  }
  return result;
}

CrossValidation cross_validate(const std::vector<Observation>& observations,
                               const std::vector<FitParameter>& parameters) {
  CrossValidation cv;
  std::vector<const Observation*> all;
  for (const auto& o : observations) {
    all.push_back(&o);
    if (std::find(cv.groups.begin(), cv.groups.end(), o.group) == cv.groups.end()) {
      cv.groups.push_back(o.group);
    }
  }
  cv.all = fit(all, parameters);
  cv.in_sample.resize(observations.size());
  cv.held_out.resize(observations.size());
  for (size_t i = 0; i < observations.size(); ++i) {
    const auto& o = observations[i];
    cv.in_sample[i] = o.predict(cv.all.apply(o.profile, parameters));
  }
  for (const auto& g : cv.groups) {
    std::vector<const Observation*> rest;
    for (const auto* o : all) {
      if (o->group != g) rest.push_back(o);
    }
    cv.folds.push_back(fit(rest, parameters));
    for (size_t i = 0; i < observations.size(); ++i) {
      const auto& o = observations[i];
      if (o.group == g) cv.held_out[i] = o.predict(cv.folds.back().apply(o.profile, parameters));
    }
  }
  return cv;
}

std::vector<FitParameter> training_fit_parameters() {
  using catalog::EfficiencyProfile;
  using core::UnitKind;
  return {
      // Share of the dense peak large GEMMs reach. Start: 70 %, cuBLAS large-GEMM results on
      // H100 (~650-700 of 989 TFLOP/s); the search spans what any GPU reaches in practice.
      // Hopper at most 68 %: above it, with gemm_half_dim >= 64, the model's bf16 or fp8 GEMMs
      // outrun cuBLAS measured on an H200 by more than 5 % at some training-sized shape
      // (data/measurements; test MeasuredCeiling.ModelGemmNeverBeatsMeasuredCublasOnH200).
      {"gemm_max",
       true,
       UnitKind::kPercent,
       0.40,
       0.95,
       0.01,
       0.70,
       [](const EfficiencyProfile& e) { return e.gemm_max; },
       [](EfficiencyProfile& e, double v) { e.gemm_max = v; },
       {{"hopper", 0.68}}},
      // GEMM dimension at which efficiency halves (tile and wave quantisation). Start: 128, one
      // tile edge of the cuBLAS/CUTLASS kernels. Range: what cuBLAS on an H200 shows, 2048^3 at
      // 91 % and 1024^3 at 46 % of the 8192^3 rate, i.e. a half-dimension of 62 to 302
      // (data/measurements). The runs alone cannot tell it from layer_overhead (both slow small
      // models; the loss is flat from 0 to 160), so the range comes from the chip.
      {"gemm_half_dim", false, UnitKind::kCount, 64, 320, 8, 128,
       [](const EfficiencyProfile& e) { return e.gemm_half_dim; },
       [](EfficiencyProfile& e, double v) { e.gemm_half_dim = v; }},
      // Fixed time per layer per micro-batch (launches, small ops). Start: none.
      {"layer_overhead", false, UnitKind::kDuration, 0, 2e-3, 0.05e-3, 0,
       [](const EfficiencyProfile& e) { return e.layer_overhead.value(); },
       [](EfficiencyProfile& e, double v) { e.layer_overhead = core::Seconds(v); }},
      // Fixed time per optimizer step (optimizer launches, logging). Start: none.
      {"step_overhead", false, UnitKind::kDuration, 0, 0.3, 0.005, 0,
       [](const EfficiencyProfile& e) { return e.step_overhead.value(); },
       [](EfficiencyProfile& e, double v) { e.step_overhead = core::Seconds(v); }},
      // Share of the (doubled) FP8 peak that FP8 GEMM kernels reach relative to BF16 ones; the
      // casts are a separate memory-bound term (fp8_cast_bytes). One value for every generation
      // (a per-generation one would be fitted to nothing on Ampere, which has no FP8). Start:
      // 75 %. At most 93 %: above 94 %, with fp8_gemm_half_k 256 and the Hopper ceilings of
      // gemm_max (68 %) and gemm_half_dim (64), the model's FP8 GEMMs outrun cuBLAS on an H200 by
      // more than 5 % at 1024 x 8192 x 1024 (data/measurements; tests MeasuredCeiling.*).
      {"fp8_gemm_relative", false, UnitKind::kPercent, 0.50, 0.93, 0.01, 0.75,
       [](const EfficiencyProfile& e) { return e.fp8_gemm_relative; },
       [](EfficiencyProfile& e, double v) { e.fp8_gemm_relative = v; }},
      // Host time per local expert per MoE layer per micro-batch that Megatron's alltoall
      // dispatcher exposes by synchronising the stream before its all-to-all (the GPU idles
      // while the host launches the experts' GEMMs). Start: none. Only runs with that dispatcher
      // and several experts per GPU inform it (the flex dispatcher's runs do not pay it).
      {"moe_sync_expert_overhead", false, UnitKind::kDuration, 0, 1e-3, 0.02e-3, 0,
       [](const EfficiencyProfile& e) { return e.moe_sync_expert_overhead.value(); },
       [](EfficiencyProfile& e, double v) { e.moe_sync_expert_overhead = core::Seconds(v); }},
  };
}

}  // namespace aicost::perf
