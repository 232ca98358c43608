// A replica under load and the cheapest deployment that meets a latency SLA.
// Load model (continuous batching, inference-model.md §1.4-1.10): at arrival rate lambda a
// replica holds n concurrent sequences with n = lambda x (prefill + output x step(n)) (Little);
// prefills share the steps, stretching each by 1 / (1 - lambda x prefill). A request waits for
// the prefills ahead of it (M/D/1, as DistServe models the prefill phase) and for one of
// `max_batch` slots (Erlang C, M/M/c), so tails rise as the replica saturates.
// Times, rates and money are unit types (core/quantity.h); token counts and shares (cache hits,
// utilisations, squared coefficients of variation) are plain doubles.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aicost/core/quantity.h"
#include "aicost/serving/replica.h"

namespace aicost::serving {

struct Traffic {
  core::PerSecond request_rate{0};  // requests
  double input_tokens = 0;          // mean prompt length
  double output_tokens = 0;         // mean generated length
  // Lengths at the SLA percentile (0: every request has the mean length). A TTFT tail is the
  // prefill of a tail-length prompt plus the queueing tail (a conservative sum); the KV cache
  // must hold a full batch of tail-length sequences.
  double input_tail_tokens = 0;
  double output_tail_tokens = 0;
  // Squared coefficients of variation of the lengths, for the queues: the prefill queue is
  // M/G/1 (Pollaczek-Khinchine, 0 = fixed prompts: M/D/1) and the slot queue M/G/c (Allen-Cunneen:
  // the M/M/c wait times (1 + c_s^2) / 2, 1 = exponential service, the default when only means
  // are known). A plan's {mean, p90} sets them from its log-normal (lognormal_cv2).
  double input_cv2 = 0;
  double output_cv2 = 1;
  // Share of prompt tokens found in the prefix cache: their prefill is skipped (their KV still
  // occupies the cache). inference-model.md §1.9.
  double prefix_cache_hit = 0;
  // Share of requests answered from a response (exact or semantic) cache before they reach a
  // replica: no prefill, no decode. Replicas are sized for the rest; the SLA is checked on the
  // requests that reach a replica (cached answers only shorten the overall tail); prices per
  // token are per token delivered, cached ones included. inference-model.md §1.9.
  double response_cache_hit = 0;
  // The request rate that reaches the replicas.
  core::PerSecond replica_request_rate() const { return request_rate * (1 - response_cache_hit); }
};

struct Sla {
  core::Seconds ttft{0};  // time to first token at `percentile`; 0 = no target
  core::Seconds tpot{0};  // time per output token; 0 = no target
  double percentile = 0.9;
  core::Seconds e2e{0};  // whole request at `percentile` (TTFT tail + output x TPOT); 0 = none
};

struct LoadPoint {
  bool saturated = false;                   // arrivals exceed what the replica can serve
  double concurrency = 0;                   // sequences in flight
  core::Seconds step{0};                    // decode step, prefill interference included (= TPOT)
  core::Seconds ttft_p50{0}, ttft_tail{0};  // tail at the SLA percentile
  core::Seconds e2e{0};                     // mean request latency
  core::Seconds e2e_tail{0};                // TTFT tail + output x step
};

// The replica with at most `max_batch` running sequences at `per_replica.request_rate`.
LoadPoint at_load(const Replica& r, int max_batch, const Traffic& per_replica, double percentile);

// Waiting for the prefills ahead (M/G/1 at prefill utilisation rho, mean prefill `prefill`,
// squared coefficient of variation `cv2`): mean rho p (1 + cv2) / (2 (1 - rho)); its tail taken as
// exponential with that mean and P(wait) = rho.
core::Seconds prefill_wait_mean(double rho, core::Seconds prefill, double cv2 = 0);
core::Seconds prefill_wait_quantile(double rho, core::Seconds prefill, double q, double cv2 = 0);

// What attention DP's imbalance adds to each prompt's prefill (TensorRT-LLM enable_attention_dp).
// A new prompt goes to one rank, the ranks taking them in turn (round-robin), and runs its
// attention module there whole (prompt_attention_on_one_gpu: A), while a step lasts as long as
// its busiest rank (TensorRT-LLM docs/source/blogs/tech_blog/blog10, "ADP Balance"). Of n prompts
// a step over t ranks the busiest runs max(n / t, min(n, 1)) of them where prefill_time's even
// split runs n / t: one prompt in the steps that hold one when n < 1 (a share n of them), one when
// n < t, n / t from t on. The step's extra (busiest - n / t) A is shared by its n prompts:
// (1 - 1 / t) A each when they come alone, none from n = t on. 0 without attention DP.
core::Seconds attention_dp_imbalance(const Replica& r, double prompts_per_step, double tokens,
                                     double seq);

// A closed loop of `clients` users who each send the next request when the last is answered
// (a benchmark's max-concurrency, NIM's "concurrency"): the replica runs min(clients, slots)
// sequences, slots = the batch limit or what the KV cache holds; the others queue for a slot.
// Under attention DP each prefill adds attention_dp_imbalance at the loop's prompts a step
// (request rate x step), in the TTFT and in the share of time the steps spend prefilling.
struct ClosedLoopPoint {
  core::PerSecond request_rate{0};
  core::PerSecond output_token_rate{0};
  core::Seconds ttft{0};    // mean, prefill queue and slot queue included
  core::Seconds tpot{0};    // mean decode step, prefill interference included
  double running = 0;       // sequences in the batch
  bool slot_bound = false;  // clients beyond the slots: they wait, the TTFT grows with them
};
ClosedLoopPoint closed_loop(const Replica& r, int max_batch, const Traffic& lengths, int clients);

// The highest request rate one replica sustains within the SLA (0 if even a trickle misses it).
core::PerSecond max_rate_within_sla(const Replica& r, int max_batch, const Traffic& t,
                                    const Sla& sla);

// Lengths drawn from a log-normal with this mean and 90th percentile: the value at quantile q.
// The 90th percentile must be at least the mean (else the mean is returned). A log-normal's p90
// is at most e^{z90^2/2} = 2.27 x its mean; beyond that the mean is read as the median so that
// the p90 still holds.
double lognormal_quantile(double mean, double p90, double q);

// The squared coefficient of variation e^{sigma^2} - 1 of the log-normal lognormal_quantile
// reads from this mean and 90th percentile (0 when the p90 is not above the mean).
double lognormal_cv2(double mean, double p90);

// Erlang C: probability that an arrival waits, c servers at offered load a = lambda / mu (< c).
double erlang_c(int servers, double offered_load);

struct DeploymentOption {
  Replica replica;  // GPU, TP, precision
  core::UsdPerSecond price_per_gpu{0};
  std::string price_basis;
  std::string instance;  // catalog id of the instance priced; empty for a plain gpu_hour price
};

struct Deployment {
  int option = -1;  // index into the options
  int max_batch = 0;
  int replicas = 0;
  core::PerSecond rate_per_replica{0};  // requests that reach each replica (cache misses)
  core::Usd monthly{0};                 // replicas x GPUs x price x 730 h
  // Prices of a million tokens as an API price sheet quotes them: the replica's cost split by the
  // share of its time spent prefilling (input) and decoding or idle (output).
  core::Usd per_million_input_tokens{0};
  core::Usd per_million_output_tokens{0};
  core::Usd per_million_tokens{0};  // input and output together, blended
  LoadPoint load;                   // of one replica at its share of the traffic
};

// The traffic, counted as all requests (response-cache hits included), that one replica of the
// deployment covers within the SLA: what a scaling policy divides demand by.
core::PerSecond replica_capacity(const DeploymentOption& option, const Deployment& d,
                                 const Traffic& traffic, const Sla& sla);

// The cheapest option x batch limit x replica count meeting the SLA at `traffic`; nullopt when
// none does. `batches` are the batch limits to try.
std::optional<Deployment> cheapest_deployment(const std::vector<DeploymentOption>& options,
                                              const std::vector<int>& batches,
                                              const Traffic& traffic, const Sla& sla);

// The cheapest deployment per option (nullopt when the option cannot meet the SLA or fit).
std::vector<std::optional<Deployment>> per_option(const std::vector<DeploymentOption>& options,
                                                  const std::vector<int>& batches,
                                                  const Traffic& traffic, const Sla& sla);

// Rows: TTFT targets; columns: request rates; cells: cheapest monthly cost (nullopt: none).
struct SlaCostMatrix {
  std::vector<core::Seconds> ttft_targets;
  std::vector<core::PerSecond> rates;
  std::vector<std::vector<std::optional<core::Usd>>> monthly;
};
SlaCostMatrix sla_cost_matrix(const std::vector<DeploymentOption>& options,
                              const std::vector<int>& batches, const Traffic& traffic,
                              const Sla& sla, const std::vector<core::Seconds>& ttft_targets,
                              const std::vector<core::PerSecond>& rates);

// Why no option meets the SLA: the best TTFT and TPOT any option reaches with no queueing,
// against the targets, and what would close the gap. Empty when some option meets it.
std::string explain_unreachable(const std::vector<DeploymentOption>& options,
                                const std::vector<int>& batches, const Traffic& traffic,
                                const Sla& sla);

}  // namespace aicost::serving
