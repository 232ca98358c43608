#include "aicost/serving/measurement.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "aicost/serving/capacity.h"

namespace aicost::serving {

const char* to_string(Metric m) {
  switch (m) {
    case Metric::kThroughput: return "throughput";
    case Metric::kTtft: return "ttft";
    case Metric::kTpot: return "tpot";
  }
  return "?";
}

double max_load_batch(const Replica& r, double input, double output, double cap) {
  // Under attention DP every rank schedules its own sequences and the engine's limit is each
  // rank's (TensorRT-LLM's trtllm-bench: "--max_batch_size: Max batch size in each rank", 896 x 8
  // ranks = concurrency 7,168 in Best_perf_practice_on_DeepSeek-R1_in_TensorRT-LLM.md). SGLang's
  // --max-running-requests is the total instead (its model runner divides it by dp_size).
  const double engine = r.attention_data_parallel ? cap * r.tensor_parallel : cap;
  return std::clamp(std::floor(kv_capacity_tokens(r) / (input + output)), 1.0, engine);
}

namespace {

// One replica's figure: `clients` closed-loop users or `requests_per_s` Poisson arrivals of its
// own, else the static batch or max load of the measurement.
double predict_replica(const Measurement& m, int clients, double requests_per_s) {
  const int slots = static_cast<int>(max_load_batch(m.replica, m.input, m.output));
  if (requests_per_s > 0) {
    const Traffic t{core::PerSecond(requests_per_s), m.input, m.output};
    const auto p = at_load(m.replica, slots, t, 0.5);
    if (p.saturated) {
      const auto full = closed_loop(m.replica, slots, t, slots);
      switch (m.metric) {
        case Metric::kThroughput: return full.output_token_rate.value();
        case Metric::kTtft:
          return std::numeric_limits<double>::infinity();  // the queue grows without bound
        case Metric::kTpot: return full.tpot.value();
      }
    }
    switch (m.metric) {
      case Metric::kThroughput: return requests_per_s * m.output;
      case Metric::kTtft: return p.ttft_p50.value();
      case Metric::kTpot: return p.step.value();
    }
  }
  if (clients > 0) {
    const Traffic lengths{core::PerSecond(0), m.input, m.output};
    const auto p = closed_loop(m.replica, slots, lengths, clients);
    switch (m.metric) {
      case Metric::kThroughput: return p.output_token_rate.value();
      case Metric::kTtft: return p.ttft.value();
      case Metric::kTpot: return p.tpot.value();
    }
  }
  if (m.max_load && m.metric == Metric::kThroughput) {
    const double batch = max_load_batch(m.replica, m.input, m.output, m.max_sequences);
    return batch / continuous_step_time(m.replica, batch, m.input, m.output).value();
  }
  const double batch =
      m.max_load ? max_load_batch(m.replica, m.input, m.output, m.max_sequences) : m.batch;
  switch (m.metric) {
    case Metric::kThroughput:
      return run_batch(m.replica, batch, m.input, m.output).output_tokens_per_s;
    case Metric::kTtft: return prefill_time(m.replica, batch * m.input, m.input).value();
    case Metric::kTpot: {
      const auto b = run_batch(m.replica, batch, m.input, m.output);
      return (b.prefill + b.decode).value() / m.output;
    }
  }
  return 0;
}

}  // namespace

double predict(const Measurement& m) {
  const int n = std::max(1, m.replicas);
  if (m.clients > 0 && m.clients % n != 0) {
    // The clients spread as evenly as they can: k replicas serve one more than the others. The
    // system's throughput is their sum; a latency is the mean over requests, which each replica
    // answers in proportion to its request rate.
    const int few = m.clients / n, k = m.clients % n;
    Measurement rate = m;
    rate.metric = Metric::kThroughput;
    const double more_rate = predict_replica(rate, few + 1, 0) / m.output;
    const double less_rate = few > 0 ? predict_replica(rate, few, 0) / m.output : 0;
    if (m.metric == Metric::kThroughput) return (k * more_rate + (n - k) * less_rate) * m.output;
    const double more = predict_replica(m, few + 1, 0);
    const double less = few > 0 ? predict_replica(m, few, 0) : 0;
    return (k * more_rate * more + (n - k) * less_rate * less) /
           (k * more_rate + (n - k) * less_rate);
  }
  const double one = predict_replica(m, m.clients / n, m.requests_per_s / n);
  return m.metric == Metric::kThroughput ? one * n : one;
}

std::vector<perf::FitParameter> fit_parameters() {
  using catalog::EfficiencyProfile;
  using core::UnitKind;
  // A generation gets its own prefill or decode value only from at least 3 of its rows that the
  // value governs a quarter of the time of (prefill-heavy rows for the prefill share, decode-heavy
  // ones for the bandwidth); else it takes the pooled value. Three rows dominated by something
  // else (vLLM's batch-8 latency rows on an A100 for the prefill share) would set it to anything.
  constexpr int kInformingRows = 3;
  constexpr double kInformingShare = 0.25;
  // The decode share's prior (FitParameter::prior_rows): its start, 70 %, weighted as a tenth of a
  // row. A generation whose rows leave the share undetermined (MI300X without Oracle's blog: AMD's
  // max-load rows fit 31 % or 94 % as the search goes) keeps 70 %; a determined one moves by at
  // most a point (docs/VALIDATION.md: 0.03 to 0.1 give the same CV p90, 1 row pins Blackwell).
  constexpr double kDecodePriorRows = 0.1;
  return {
      // Share of the dense peak a long prefill reaches. Start: 60 %, a large GEMM's share in an
      // inference engine (below training's: smaller batches of rows).
      {"serving_prefill_mfu",
       true,
       UnitKind::kPercent,
       0.20,
       0.95,
       0.01,
       0.60,
       [](const EfficiencyProfile& e) { return e.serving_prefill_mfu; },
       [](EfficiencyProfile& e, double v) { e.serving_prefill_mfu = v; },
       {},
       kInformingRows,
       kInformingShare},
      // Share of HBM bandwidth a decode step streams weights and KV at. Start and prior: 70 %,
      // what memory-bound kernels reach on HBM (STREAM-like copies). Hopper at most 89 %, an HBM
      // copy on an H200: the decode GEMMs measured there (m = 1, 17-235 MB each) take 6.0 us plus
      // their bytes at 90 % of HBM (data/measurements; a least-squares line), and the fixed part is
      // serving_layer_overhead's (MeasuredCeiling.DecodeBandwidthShareMatchesWeightStreaming).
      {"serving_decode_bandwidth",
       true,
       UnitKind::kPercent,
       0.30,
       0.95,
       0.01,
       0.70,
       [](const EfficiencyProfile& e) { return e.serving_decode_bandwidth; },
       [](EfficiencyProfile& e, double v) { e.serving_decode_bandwidth = v; },
       {{"hopper", 0.89}},
       0,
       0,
       kDecodePriorRows},
      // Fixed time per routed expert a GPU runs per MoE layer and step (replica.cc
      // expert_overhead). Start: none.
      {"serving_expert_overhead", false, UnitKind::kDuration, 0, 20e-6, 0.25e-6, 0,
       [](const EfficiencyProfile& e) { return e.serving_expert_overhead.value(); },
       [](EfficiencyProfile& e, double v) { e.serving_expert_overhead = core::Seconds(v); }},
      // Share of HBM bandwidth the decode attention kernels read the KV cache at. Shared: the
      // kernels are the engines' (FlashDecoding, XQA, paged attention). At most 89 %, an HBM copy
      // on an H200 (data/measurements): no kernel streams faster than a copy. Start: 70 %.
      {"serving_kv_bandwidth", false, UnitKind::kPercent, 0.40, 0.89, 0.01, 0.70,
       [](const EfficiencyProfile& e) { return e.serving_kv_bandwidth; },
       [](EfficiencyProfile& e, double v) { e.serving_kv_bandwidth = v; }},
      // Fixed time per layer per decode step not hidden by CUDA graphs. Start: none.
      {"serving_layer_overhead", false, UnitKind::kDuration, 0, 100e-6, 1e-6, 0,
       [](const EfficiencyProfile& e) { return e.serving_layer_overhead.value(); },
       [](EfficiencyProfile& e, double v) { e.serving_layer_overhead = core::Seconds(v); }},
      // Fixed time per running sequence per forward step (replica.cc forward_step): the engine's
      // per-request work in each step. Start: none. At most 20 us, a Python-side loop over a
      // request's metadata in a step (vLLM's scheduler and input preparation run on the CPU).
      {"serving_sequence_overhead", false, UnitKind::kDuration, 0, 20e-6, 0.25e-6, 0,
       [](const EfficiencyProfile& e) { return e.serving_sequence_overhead.value(); },
       [](EfficiencyProfile& e, double v) { e.serving_sequence_overhead = core::Seconds(v); }},
  };
}

}  // namespace aicost::serving
