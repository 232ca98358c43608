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
  return std::clamp(std::floor(kv_capacity_tokens(r) / (input + output)), 1.0, cap);
}

double predict(const Measurement& m) {
  const int slots = static_cast<int>(max_load_batch(m.replica, m.input, m.output));
  if (m.requests_per_s > 0) {
    const Traffic t{m.requests_per_s, m.input, m.output};
    const auto p = at_load(m.replica, slots, t, 0.5);
    if (p.saturated) {
      const auto full = closed_loop(m.replica, slots, t, slots);
      switch (m.metric) {
        case Metric::kThroughput: return full.output_tokens_per_s;
        case Metric::kTtft: return std::numeric_limits<double>::infinity();  // the queue grows without bound
        case Metric::kTpot: return full.tpot_s;
      }
    }
    switch (m.metric) {
      case Metric::kThroughput: return m.requests_per_s * m.output;
      case Metric::kTtft: return p.ttft_p50_s;
      case Metric::kTpot: return p.step_s;
    }
  }
  if (m.clients > 0) {
    const Traffic lengths{0, m.input, m.output};
    const auto p = closed_loop(m.replica, slots, lengths, m.clients);
    switch (m.metric) {
      case Metric::kThroughput: return p.output_tokens_per_s;
      case Metric::kTtft: return p.ttft_s;
      case Metric::kTpot: return p.tpot_s;
    }
  }
  const double batch = m.max_load ? max_load_batch(m.replica, m.input, m.output) : m.batch;
  switch (m.metric) {
    case Metric::kThroughput:
      return run_batch(m.replica, batch, m.input, m.output).output_tokens_per_s;
    case Metric::kTtft:
      return prefill_time(m.replica, batch * m.input, m.input).value();
    case Metric::kTpot: {
      const auto b = run_batch(m.replica, batch, m.input, m.output);
      return (b.prefill + b.decode).value() / m.output;
    }
  }
  return 0;
}

}  // namespace aicost::serving
