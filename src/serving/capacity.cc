#include "aicost/serving/capacity.h"

#include <algorithm>
#include <cmath>

#include "aicost/core/stats.h"

namespace aicost::serving {

namespace {

// The log-normal through this mean and p90: (mu, sigma). ln p90 - ln mean = z90 sigma - sigma^2/2;
// the smaller root keeps the mode below the mean. No log-normal with this mean reaches a p90 above
// 2.27 x the mean (heavier-tailed data): then the mean is read as the median, keeping the p90
// exact.
std::pair<double, double> lognormal_fit(double mean, double p90) {
  const double z90 = core::normal_quantile(0.9);
  const double gap = std::log(p90 / mean);
  const double disc = z90 * z90 - 2 * gap;
  if (disc < 0) return {std::log(mean), gap / z90};
  const double sigma = z90 - std::sqrt(disc);
  return {std::log(mean) - sigma * sigma / 2, sigma};
}

}  // namespace

double lognormal_quantile(double mean, double p90, double q) {
  if (p90 <= mean || mean <= 0) return mean;
  const auto [mu, sigma] = lognormal_fit(mean, p90);
  return std::exp(mu + core::normal_quantile(q) * sigma);
}

double lognormal_cv2(double mean, double p90) {
  if (p90 <= mean || mean <= 0) return 0;
  const double sigma = lognormal_fit(mean, p90).second;
  return std::expm1(sigma * sigma);
}

double erlang_c(int c, double a) {
  if (a >= c) return 1;
  // Erlang B by the stable recurrence, then C = B / (1 - (a/c)(1 - B)).
  double b = 1;
  for (int k = 1; k <= c; ++k) b = a * b / (k + a * b);
  const double rho = a / c;
  return b / (1 - rho * (1 - b));
}

core::Seconds prefill_wait_mean(double rho, core::Seconds prefill, double cv2) {
  if (rho <= 0) return core::Seconds(0);
  return core::Seconds(rho * prefill.value() * (1 + cv2) / (2 * (1 - rho)));
}

core::Seconds prefill_wait_quantile(double rho, core::Seconds prefill, double q, double cv2) {
  if (rho <= 1 - q) return core::Seconds(0);
  return core::Seconds(prefill_wait_mean(rho, prefill, cv2).value() / rho *
                       std::log(rho / (1 - q)));
}

namespace {

// The M/G/1 prefill waits on plain seconds, for the load model's inner arithmetic.
double wait_mean(double rho, double prefill, double cv2) {
  return prefill_wait_mean(rho, core::Seconds(prefill), cv2).value();
}
double wait_quantile(double rho, double prefill, double q, double cv2) {
  return prefill_wait_quantile(rho, core::Seconds(prefill), q, cv2).value();
}

}  // namespace

LoadPoint at_load(const Replica& r, int max_batch, const Traffic& t, double percentile) {
  LoadPoint p;
  const double prefill =
      prefill_time(r, t.input_tokens * (1 - t.prefix_cache_hit), t.input_tokens).value();
  // The load model works on plain seconds and requests per second (the same base units).
  const double lambda = t.request_rate.value();
  const double prefill_share = lambda * prefill;  // fraction of time spent prefilling
  if (prefill_share >= 1) {
    p.saturated = true;
    return p;
  }
  // Fixed point of Little's law n = lambda (prefill + output step(n)), n <= max_batch.
  double n = std::min<double>(max_batch, std::max(1.0, lambda * prefill));
  double step = 0;
  for (int i = 0; i < 50; ++i) {
    step = decode_step_time(r, std::max(1.0, n), t.input_tokens + t.output_tokens / 2).value() /
           (1 - prefill_share);
    const double next = lambda * (prefill + t.output_tokens * step);
    if (std::fabs(next - n) < 1e-6 * std::max(1.0, n)) {
      n = next;
      break;
    }
    n = 0.5 * n + 0.5 * next;
  }
  p.concurrency = n;
  p.step = core::Seconds(step);
  const double service = prefill + t.output_tokens * step;  // time a request holds a slot
  const double offered = lambda * service;
  if (n > max_batch || offered >= max_batch) {
    p.saturated = true;
    return p;
  }
  // M/M/c wait for a slot, P(wait > x) = C exp(-(c mu - lambda) x), scaled to M/G/c by
  // Allen-Cunneen's (1 + c_s^2) / 2; the service's variation is the answer length's, weighted
  // by the decode share of the time a request holds its slot.
  const double mu = 1 / service;
  const double wait_prob = erlang_c(max_batch, offered);
  const double drain = max_batch * mu - lambda;
  const double decode_share = t.output_tokens * step / service;
  const double variation = (1 + t.output_cv2 * decode_share * decode_share) / 2;
  auto slot_wait_quantile = [&](double q) {
    return wait_prob <= 1 - q ? 0.0 : variation * std::log(wait_prob / (1 - q)) / drain;
  };
  const double tail_input = t.input_tail_tokens > 0 ? t.input_tail_tokens : t.input_tokens;
  const double tail_output = t.output_tail_tokens > 0 ? t.output_tail_tokens : t.output_tokens;
  const double tail_prefill =
      tail_input == t.input_tokens
          ? prefill
          : prefill_time(r, tail_input * (1 - t.prefix_cache_hit), tail_input).value();
  // The two waits are summed at the same quantile: conservative, as for the tail prompt.
  p.ttft_p50 = core::Seconds(prefill + wait_quantile(prefill_share, prefill, 0.5, t.input_cv2) +
                             slot_wait_quantile(0.5));
  p.ttft_tail =
      core::Seconds(tail_prefill + wait_quantile(prefill_share, prefill, percentile, t.input_cv2) +
                    slot_wait_quantile(percentile));
  p.e2e = core::Seconds(wait_mean(prefill_share, prefill, t.input_cv2) +
                        variation * wait_prob / drain + service);
  p.e2e_tail = core::Seconds(p.ttft_tail.value() + tail_output * step);
  return p;
}

core::Seconds attention_dp_imbalance(const Replica& r, double prompts_per_step, double tokens,
                                     double seq) {
  if (!r.attention_data_parallel || r.tensor_parallel <= 1) return core::Seconds(0);
  const double n = std::max(0.0, prompts_per_step), ranks = r.tensor_parallel;
  // (max(n / t, min(n, 1)) - n / t) / n, taken at its limit 1 - 1 / t as n -> 0.
  const double share = n <= 1 ? 1 - 1 / ranks : std::max(0.0, 1 / n - 1 / ranks);
  return prompt_attention_on_one_gpu(r, tokens, seq) * share;
}

ClosedLoopPoint closed_loop(const Replica& r, int max_batch, const Traffic& t, int clients) {
  ClosedLoopPoint p;
  const double tokens = t.input_tokens * (1 - t.prefix_cache_hit);
  const double even_prefill = prefill_time(r, tokens, t.input_tokens).value();
  const double slots = std::min<double>(
      max_batch, std::floor(kv_capacity_tokens(r) / (t.input_tokens + t.output_tokens)));
  if (slots < 1 || clients < 1) return p;
  p.running = std::min<double>(clients, slots);
  p.slot_bound = clients > slots;
  const double bare_step =
      decode_step_time(r, p.running, t.input_tokens + t.output_tokens / 2).value();
  // Fixed point on the request rate X: prefills take X x prefill of the time and stretch the
  // steps; the running sequences cycle through wait, prefill and decode.
  double x = p.running / (even_prefill + t.output_tokens * bare_step);
  // A closed loop has only running - 1 other requests to queue behind: the Poisson (M/G/1)
  // wait is scaled by (running - 1) / running, none for a single client.
  const double others = (p.running - 1) / p.running;
  double rho = 0, step = bare_step, cycle = 0, wait = 0, prefill = even_prefill;
  for (int i = 0; i < 100; ++i) {
    // The prompts of a step, x step of them, share attention DP's imbalance.
    prefill = even_prefill + attention_dp_imbalance(r, x * step, tokens, t.input_tokens).value();
    rho = std::min(0.99, x * prefill);
    step = bare_step / (1 - rho);
    wait = wait_mean(rho, prefill, t.input_cv2) * others;
    cycle = wait + prefill + t.output_tokens * step;
    const double next = p.running / cycle;
    if (std::fabs(next - x) < 1e-9 * x) break;
    x = 0.5 * x + 0.5 * next;
  }
  p.request_rate = core::PerSecond(x);
  p.output_token_rate = core::PerSecond(x * t.output_tokens);
  p.tpot = core::Seconds(step);
  // Clients beyond the slots wait for one: in a closed loop each waits (clients - slots) / X.
  p.ttft = core::Seconds(wait + prefill + (clients - p.running) / x);
  return p;
}

namespace {

bool meets(const LoadPoint& p, const Sla& s) {
  if (p.saturated) return false;
  const core::Seconds none{0};
  if (s.ttft > none && p.ttft_tail > s.ttft) return false;
  if (s.tpot > none && p.step > s.tpot) return false;
  if (s.e2e > none && p.e2e_tail > s.e2e) return false;
  return true;
}

}  // namespace

core::PerSecond max_rate_within_sla(const Replica& r, int max_batch, const Traffic& t,
                                    const Sla& sla) {
  Traffic probe = t;
  auto meets_at = [&](double rate) {
    probe.request_rate = core::PerSecond(rate);
    return meets(at_load(r, max_batch, probe, sla.percentile), sla);
  };
  if (!meets_at(1e-6)) return core::PerSecond(0);
  // Bisection on the rate (requests per second): latency grows with load.
  double lo = 1e-6, hi = 1;
  while (meets_at(hi)) {
    lo = hi;
    hi *= 2;
    if (hi > 1e7) return core::PerSecond(lo);
  }
  for (int i = 0; i < 60 && hi - lo > 1e-4 * lo; ++i) {
    const double mid = (lo + hi) / 2;
    (meets_at(mid) ? lo : hi) = mid;
  }
  return core::PerSecond(lo);
}

namespace {

// The cheapest batch limit and replica count for one option; ties go to fewer replicas, then
// the smaller batch (the earlier in `batches`).
std::optional<Deployment> best_for_option(const DeploymentOption& opt, int index,
                                          const std::vector<int>& batches, const Traffic& traffic,
                                          const Sla& sla) {
  std::optional<Deployment> best;
  if (!check(opt.replica)) return best;
  for (int b : batches) {
    // The KV cache must hold the batch at full length.
    const double longest = std::max(traffic.input_tail_tokens, traffic.input_tokens) +
                           std::max(traffic.output_tail_tokens, traffic.output_tokens);
    if (kv_capacity_tokens(opt.replica) < b * longest) continue;
    const core::PerSecond rate = max_rate_within_sla(opt.replica, b, traffic, sla);
    if (rate <= core::PerSecond(0)) continue;
    Deployment d;
    d.option = index;
    d.max_batch = b;
    const core::PerSecond served = traffic.replica_request_rate();
    d.replicas = std::max(1, static_cast<int>(std::ceil(served / rate)));
    d.rate_per_replica = served / d.replicas;
    d.monthly = core::usd(d.replicas * opt.replica.tensor_parallel *
                          core::per_hour(opt.price_per_gpu) * core::kHoursPerMonth);
    const double per_month = traffic.request_rate.value() * core::kSecondsPerMonth;  // requests
    const core::Seconds prefill = prefill_time(
        opt.replica, traffic.input_tokens * (1 - traffic.prefix_cache_hit), traffic.input_tokens);
    const double input_share = std::min(1.0, d.rate_per_replica * prefill);
    d.per_million_input_tokens = d.monthly * input_share / (per_month * traffic.input_tokens) * 1e6;
    d.per_million_output_tokens =
        d.monthly * (1 - input_share) / (per_month * traffic.output_tokens) * 1e6;
    d.per_million_tokens =
        d.monthly / (per_month * (traffic.input_tokens + traffic.output_tokens)) * 1e6;
    Traffic share = traffic;
    share.request_rate = d.rate_per_replica;
    d.load = at_load(opt.replica, b, share, sla.percentile);
    if (!best || d.monthly < best->monthly ||
        (d.monthly == best->monthly && d.replicas < best->replicas)) {
      best = d;
    }
  }
  return best;
}

}  // namespace

core::PerSecond replica_capacity(const DeploymentOption& option, const Deployment& d,
                                 const Traffic& traffic, const Sla& sla) {
  const double miss = 1 - traffic.response_cache_hit;
  if (miss <= 0) return core::PerSecond(0);
  return max_rate_within_sla(option.replica, d.max_batch, traffic, sla) / miss;
}

std::vector<std::optional<Deployment>> per_option(const std::vector<DeploymentOption>& options,
                                                  const std::vector<int>& batches,
                                                  const Traffic& traffic, const Sla& sla) {
  std::vector<std::optional<Deployment>> out;
  for (size_t o = 0; o < options.size(); ++o) {
    out.push_back(best_for_option(options[o], static_cast<int>(o), batches, traffic, sla));
  }
  return out;
}

std::optional<Deployment> cheapest_deployment(const std::vector<DeploymentOption>& options,
                                              const std::vector<int>& batches,
                                              const Traffic& traffic, const Sla& sla) {
  std::optional<Deployment> best;
  for (const auto& d : per_option(options, batches, traffic, sla)) {
    if (d && (!best || d->monthly < best->monthly ||
              (d->monthly == best->monthly && d->replicas < best->replicas))) {
      best = d;
    }
  }
  return best;
}

SlaCostMatrix sla_cost_matrix(const std::vector<DeploymentOption>& options,
                              const std::vector<int>& batches, const Traffic& traffic,
                              const Sla& sla, const std::vector<core::Seconds>& ttft_targets,
                              const std::vector<core::PerSecond>& rates) {
  SlaCostMatrix m{ttft_targets, rates, {}};
  for (core::Seconds ttft : ttft_targets) {
    std::vector<std::optional<core::Usd>> row;
    for (core::PerSecond rate : rates) {
      Traffic t = traffic;
      t.request_rate = rate;
      Sla s = sla;
      s.ttft = ttft;
      const auto d = cheapest_deployment(options, batches, t, s);
      row.push_back(d ? std::optional<core::Usd>(d->monthly) : std::nullopt);
    }
    m.monthly.push_back(std::move(row));
  }
  return m;
}

std::string explain_unreachable(const std::vector<DeploymentOption>& options,
                                const std::vector<int>& batches, const Traffic& traffic,
                                const Sla& sla) {
  if (cheapest_deployment(options, batches, traffic, sla)) return "";
  double best_ttft = 1e300, best_tpot = 1e300;
  bool fits = false;
  for (const auto& o : options) {
    if (!check(o.replica)) continue;
    fits = true;
    best_ttft = std::min(
        best_ttft, prefill_time(o.replica, traffic.input_tokens, traffic.input_tokens).value());
    best_tpot = std::min(best_tpot, decode_step_time(o.replica, 1, traffic.input_tokens).value());
  }
  if (!fits) return "the model fits on none of the options";
  std::string why;
  auto ms = [](double s) {
    return std::to_string(static_cast<long>(std::round(s * 1000))) + " ms";
  };
  auto how_far = [](double got, double target) {
    const double r = got / target;
    return r >= 2 ? std::to_string(static_cast<long>(std::round(r))) + " times"
                  : std::to_string(static_cast<long>(std::round(r * 100 - 100))) + " % over";
  };
  const double ttft_target = sla.ttft.value(), tpot_target = sla.tpot.value();
  if (ttft_target > 0 && best_ttft > ttft_target) {
    why += "the fastest option prefills a " +
           std::to_string(static_cast<long>(traffic.input_tokens)) + "-token prompt in " +
           ms(best_ttft) + ", " + how_far(best_ttft, ttft_target) + " the TTFT target of " +
           ms(ttft_target) +
           "; a larger tensor_parallel_size, fp8 weights or a faster GPU would shorten it";
  }
  if (tpot_target > 0 && best_tpot > tpot_target) {
    if (!why.empty()) why += "; ";
    why += "even one sequence decodes at " + ms(best_tpot) + " per token, " +
           how_far(best_tpot, tpot_target) + " the TPOT target of " + ms(tpot_target) +
           "; more tensor parallelism or higher-bandwidth GPUs would reach it";
  }
  if (why.empty()) {
    why =
        "each option meets the targets only unloaded; at any useful rate queueing pushes the "
        "tail over them. Relax the percentile or the targets, or allow larger batches";
  }
  return why;
}

}  // namespace aicost::serving
