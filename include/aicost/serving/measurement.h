// A published serving measurement and the replica model's prediction of it, for validation.
#pragma once

#include <string>
#include <vector>

#include "aicost/perf/calibration.h"
#include "aicost/serving/replica.h"

namespace aicost::serving {

enum class Metric {
  kThroughput,  // output tokens/s of the whole replica
  kTtft,        // seconds to the first token: one request, or the mean under load
  kTpot,        // seconds per output token: e2e / output for a fixed batch (prefill included, as
                //   the source derives), the inter-token latency under load
};
const char* to_string(Metric m);

struct Measurement {
  std::string name;
  std::string group;  // the source it was published in (cross-validation holds it out whole)
  Metric metric = Metric::kThroughput;
  Replica replica;
  // Identical replicas the measurement describes (a whole system: GPUs / TP). Throughput is the
  // system's; clients and request rates are shared evenly among the replicas.
  int replicas = 1;
  double batch = 1;       // concurrent sequences of a static batch; ignored when max_load
  bool max_load = false;  // offline "all requests queued": the engine fills its KV cache
  // The engine's limit on running sequences under max load ("max_num_seqs N" in the row; vLLM
  // --max-num-seqs, TensorRT-LLM max_batch_size), per rank under attention DP (max_load_batch).
  // Default: max_load_batch's.
  double max_sequences = 2048;
  // Online: a closed loop of this many clients (capacity.h closed_loop; 0 = not online). The
  // engine runs as many of them as its KV cache holds (max_load_batch) and queues the rest.
  int clients = 0;
  // Online: Poisson arrivals at this rate, requests/s (capacity.h at_load; 0 = not online). The
  // TTFT is the median, the TPOT the decode step, the throughput the output tokens served (the
  // replica's closed-loop maximum once arrivals outrun it).
  double requests_per_s = 0;
  double input = 0, output = 0;
  double measured = 0;  // tokens/s or seconds
};

// The largest batch an engine runs offline: as many sequences as the KV cache holds at full
// length, capped by the engine's own limit (TensorRT-LLM and vLLM default to at most 2,048 and
// 1,024 running sequences). `cap` is per scheduler: under attention DP each of the TP ranks
// schedules its own sequences, so the replica runs up to cap x TP (TensorRT-LLM's max_batch_size
// is per rank; a row about SGLang, whose --max-running-requests is the total, gives it / TP).
double max_load_batch(const Replica& r, double input, double output, double cap = 2048);

// The model's figure for `m`: > 0 and not NaN for a replica that fits (check(m.replica));
// infinite for the TTFT of Poisson arrivals that outrun the replica (the queue grows forever).
double predict(const Measurement& m);

// The serving model's calibrated parameters (perf/calibration.h; docs/VALIDATION.md):
// serving_prefill_mfu and serving_decode_bandwidth per generation; serving_expert_overhead,
// serving_kv_bandwidth, serving_layer_overhead and serving_sequence_overhead shared (they describe
// engines, not chips). serving_prefill_half_tokens is
// set from a micro-benchmark in data/efficiency.yaml, not fitted.
std::vector<perf::FitParameter> fit_parameters();

}  // namespace aicost::serving
