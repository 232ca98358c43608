// Load, SLA and capacity of serving replicas.
#include <gtest/gtest.h>

#include <cmath>

#include "aicost/serving/capacity.h"
#include "test_support.h"

namespace aicost::serving {
namespace {

Replica llama8b(const char* gpu, catalog::Precision p = catalog::Precision::kBf16) {
  Replica r;
  r.model = *workload::Model::create(**testing::builtin_catalog().model("llama3.1-8b"));
  r.gpu = **testing::builtin_catalog().gpu(gpu);
  r.efficiency = **testing::builtin_catalog().efficiency(r.gpu.generation);
  r.weights = r.kv_cache = p;
  return r;
}

const Traffic kChat{0, 1000, 250};

// M/M/1: the probability of waiting is the utilisation; M/M/2 at a = 1: 1/3 (textbook value).
TEST(ErlangC, TextbookValues) {
  EXPECT_NEAR(erlang_c(1, 0.7), 0.7, 1e-12);
  EXPECT_NEAR(erlang_c(2, 1.0), 1.0 / 3, 1e-12);
  EXPECT_EQ(erlang_c(4, 4.0), 1.0);
}

TEST(Load, ATrickleSeesBareLatencies) {
  const auto r = llama8b("h100-sxm-80gb");
  Traffic t = kChat;
  t.requests_per_s = 1e-4;
  const auto p = at_load(r, 64, t, 0.9);
  ASSERT_FALSE(p.saturated);
  EXPECT_NEAR(p.ttft_tail_s, prefill_time(r, 1000, 1000).value(), 1e-9);
  EXPECT_NEAR(p.step_s, decode_step_time(r, 1, 1125).value(), 1e-6);
}

TEST(Load, TailsRiseTowardsSaturationThenSaturate) {
  const auto r = llama8b("h100-sxm-80gb");
  Traffic t = kChat;
  double previous = 0;
  bool saturated = false;
  for (double rate = 1; rate < 400 && !saturated; rate *= 1.5) {
    t.requests_per_s = rate;
    const auto p = at_load(r, 64, t, 0.9);
    saturated = p.saturated;
    if (!saturated) {
      EXPECT_GE(p.ttft_tail_s, previous) << rate;
      previous = p.ttft_tail_s;
    }
  }
  EXPECT_TRUE(saturated);
}

TEST(Sla, MaxRateIsTheEdge) {
  const auto r = llama8b("h100-sxm-80gb");
  const Sla sla{0.5, 0.05, 0.9};
  const double rate = max_rate_within_sla(r, 64, kChat, sla);
  ASSERT_GT(rate, 0);
  Traffic t = kChat;
  t.requests_per_s = rate;
  const auto at = at_load(r, 64, t, 0.9);
  EXPECT_FALSE(at.saturated);
  EXPECT_LE(at.ttft_tail_s, sla.ttft_s);
  EXPECT_LE(at.step_s, sla.tpot_s);
  t.requests_per_s = rate * 1.05;
  const auto over = at_load(r, 64, t, 0.9);
  EXPECT_TRUE(over.saturated || over.ttft_tail_s > sla.ttft_s || over.step_s > sla.tpot_s);
}

// A TTFT target below the bare prefill time cannot be met by any number of replicas.
TEST(Sla, UnreachableTargetHasNoRate) {
  const auto r = llama8b("h100-sxm-80gb");
  EXPECT_EQ(max_rate_within_sla(r, 64, kChat, Sla{1e-4, 0, 0.9}), 0);
}

TEST(Capacity, PicksTheCheaperOptionAndScalesReplicas) {
  std::vector<DeploymentOption> options = {
      {llama8b("h100-sxm-80gb"), 3.0, "h100", ""},
      {llama8b("h100-sxm-80gb"), 2.0, "same GPU, cheaper", ""}};
  Traffic t = kChat;
  t.requests_per_s = 50;
  const Sla sla{1.0, 0.05, 0.9};
  const auto d = cheapest_deployment(options, {16, 32, 64, 128}, t, sla);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->option, 1);
  EXPECT_FALSE(d->load.saturated);
  // Monthly cost = replicas x 1 GPU x 2 USD/h x 730 h.
  EXPECT_DOUBLE_EQ(d->monthly_usd, d->replicas * 2.0 * 730);
  t.requests_per_s = 200;
  const auto bigger = cheapest_deployment(options, {16, 32, 64, 128}, t, sla);
  ASSERT_TRUE(bigger);
  EXPECT_GE(bigger->replicas, 3 * d->replicas);
  EXPECT_FALSE(cheapest_deployment(options, {16}, t, Sla{1e-4, 0, 0.9}));
}

}  // namespace
}  // namespace aicost::serving

namespace aicost::serving {
namespace {

// A prefix-cache hit of h skips h of the prompt's prefill: the bare TTFT is the prefill of
// (1 - h) x input tokens.
TEST(Load, PrefixCacheHitsShortenPrefill) {
  const auto r = llama8b("h100-sxm-80gb");
  Traffic t = kChat;
  t.requests_per_s = 1e-4;
  t.prefix_cache_hit = 0.75;
  const auto p = at_load(r, 64, t, 0.9);
  EXPECT_NEAR(p.ttft_tail_s, prefill_time(r, 250, 1000).value(), 1e-9);
}

// A response-cache hit of h removes h of the requests before the replicas: the deployment is
// the one for (1 - h) of the traffic, its per-token prices fall by (1 - h) because every token
// delivered counts, and a scaling policy sees each replica cover 1 / (1 - h) more requests.
TEST(Capacity, ResponseCacheHitsRemoveRequests) {
  std::vector<DeploymentOption> options = {{llama8b("h100-sxm-80gb"), 2.0, "h100", ""}};
  const Sla sla{1.0, 0.05, 0.9};
  Traffic all = kChat;
  all.requests_per_s = 200;
  all.response_cache_hit = 0.25;
  Traffic misses = kChat;
  misses.requests_per_s = 150;
  const auto cached = cheapest_deployment(options, {16, 32, 64, 128}, all, sla);
  const auto uncached = cheapest_deployment(options, {16, 32, 64, 128}, misses, sla);
  ASSERT_TRUE(cached && uncached);
  EXPECT_EQ(cached->replicas, uncached->replicas);
  EXPECT_EQ(cached->max_batch, uncached->max_batch);
  EXPECT_DOUBLE_EQ(cached->rate_per_replica, uncached->rate_per_replica);
  EXPECT_NEAR(cached->usd_per_million_tokens, uncached->usd_per_million_tokens * 0.75, 1e-9);
  EXPECT_NEAR(cached->usd_per_million_output_tokens, uncached->usd_per_million_output_tokens * 0.75,
              1e-9);
  EXPECT_NEAR(replica_capacity_rps(options[0], *cached, all, sla),
              max_rate_within_sla(options[0].replica, cached->max_batch, all, sla) / 0.75, 1e-9);
}

// One client alone: its TTFT is its prefill, and its steps are stretched by its own prefill
// share X x prefill, where X = 1 / (prefill + output x step) requests per second.
TEST(ClosedLoop, OneClientIsItsOwnLoad) {
  const auto r = llama8b("h100-sxm-80gb");
  const auto p = closed_loop(r, 64, kChat, 1);
  const double prefill = prefill_time(r, 1000, 1000).value();
  EXPECT_DOUBLE_EQ(p.running, 1);
  EXPECT_FALSE(p.slot_bound);
  EXPECT_NEAR(p.ttft_s, prefill, 1e-12);
  EXPECT_NEAR(p.requests_per_s, 1 / (prefill + 250 * p.tpot_s), 1e-6 * p.requests_per_s);
  const double rho = p.requests_per_s * prefill;
  EXPECT_NEAR(p.tpot_s, decode_step_time(r, 1, 1125).value() / (1 - rho), 1e-6 * p.tpot_s);
  EXPECT_NEAR(p.output_tokens_per_s, 250 * p.requests_per_s, 1e-9);
}

// Past the batch limit the replica runs `max_batch` sequences whatever the number of clients:
// throughput stays put and each extra client waits one more 1 / X (Little's law).
TEST(ClosedLoop, ClientsBeyondTheSlotsOnlyWait) {
  const auto r = llama8b("h100-sxm-80gb");
  const auto at = [&](int clients) { return closed_loop(r, 32, kChat, clients); };
  EXPECT_FALSE(at(32).slot_bound);
  EXPECT_TRUE(at(33).slot_bound);
  EXPECT_DOUBLE_EQ(at(40).requests_per_s, at(32).requests_per_s);
  EXPECT_NEAR(at(40).ttft_s - at(32).ttft_s, 8 / at(32).requests_per_s, 1e-9);
  EXPECT_GT(at(32).output_tokens_per_s, at(16).output_tokens_per_s);
  EXPECT_GT(at(32).tpot_s, at(16).tpot_s);
}

// The end-to-end tail is the TTFT tail plus output x TPOT; a target below it is missed.
TEST(Sla, EndToEndTargetIsChecked) {
  const auto r = llama8b("h100-sxm-80gb");
  Traffic t = kChat;
  t.requests_per_s = 1e-4;
  const auto p = at_load(r, 64, t, 0.9);
  EXPECT_NEAR(p.e2e_tail_s, p.ttft_tail_s + 250 * p.step_s, 1e-12);
  EXPECT_EQ(max_rate_within_sla(r, 64, kChat, Sla{0, 0, 0.9, p.e2e_tail_s * 0.9}), 0);
  EXPECT_GT(max_rate_within_sla(r, 64, kChat, Sla{0, 0, 0.9, p.e2e_tail_s * 2}), 0);
}

}  // namespace
}  // namespace aicost::serving

namespace aicost::serving {
namespace {

// The log-normal fitted to (mean, p90) returns the p90 at q = 0.9 and a median below the mean;
// exp(mu + sigma^2 / 2) = mean: with median m and p90 p, sigma = ln(p/m) / 1.28155 and the mean
// is m exp(sigma^2 / 2).
TEST(Lengths, LognormalMatchesItsMeanAndP90) {
  EXPECT_NEAR(lognormal_quantile(1000, 2000, 0.9), 2000, 1e-6);
  const double median = lognormal_quantile(1000, 2000, 0.5);
  EXPECT_LT(median, 1000);
  const double sigma = std::log(2000 / median) / 1.2815515655446004;
  EXPECT_NEAR(median * std::exp(sigma * sigma / 2), 1000, 1e-6);
  EXPECT_EQ(lognormal_quantile(1000, 500, 0.9), 1000);  // p90 below the mean: no spread
}

// A log-normal with sigma 0.6: mean e^{mu + 0.18}, p90 e^{mu + 1.28155 x 0.6}; its squared
// coefficient of variation is e^{0.36} - 1 = 0.4333.
TEST(Lengths, CoefficientOfVariationOfTheFittedLognormal) {
  const double mu = std::log(500.0), sigma = 0.6;
  const double mean = std::exp(mu + sigma * sigma / 2),
               p90 = std::exp(mu + 1.2815515655446004 * sigma);
  EXPECT_NEAR(lognormal_cv2(mean, p90), std::expm1(0.36), 1e-9);
  EXPECT_EQ(lognormal_cv2(1000, 900), 0);  // no spread
}

// Pollaczek-Khinchine: exponential prefills (cv2 = 1) wait twice as long as fixed ones (M/D/1).
TEST(Queues, PrefillWaitGrowsWithTheSpreadOfPrompts) {
  EXPECT_NEAR(prefill_wait_mean(0.5, 0.2, 0), 0.5 * 0.2 / (2 * 0.5), 1e-12);
  EXPECT_NEAR(prefill_wait_mean(0.5, 0.2, 1), 2 * prefill_wait_mean(0.5, 0.2, 0), 1e-12);
  EXPECT_NEAR(prefill_wait_quantile(0.5, 0.2, 0.9, 1), 2 * prefill_wait_quantile(0.5, 0.2, 0.9, 0),
              1e-12);
  EXPECT_EQ(prefill_wait_quantile(0.05, 0.2, 0.9), 0);  // P(wait) = 0.05 < 10 %
}

// Near saturation the slot wait follows Allen-Cunneen: answers of fixed length (cv2 = 0) wait
// less than exponential ones (1), and a heavy tail (4) more; TPOT does not depend on the spread.
TEST(Queues, SlotWaitGrowsWithTheSpreadOfAnswers) {
  const auto r = llama8b("h100-sxm-80gb");
  const Sla sla{10, 1, 0.99};
  Traffic t = kChat;
  t.requests_per_s =
      0.995 * max_rate_within_sla(r, 8, t, Sla{0, 0, 0.99});  // just below saturation
  auto tail = [&](double cv2) {
    Traffic u = t;
    u.output_cv2 = cv2;
    return at_load(r, 8, u, sla.percentile);
  };
  const auto fixed = tail(0), exponential = tail(1), heavy = tail(4);
  ASSERT_FALSE(exponential.saturated);
  EXPECT_LT(fixed.ttft_tail_s, exponential.ttft_tail_s);
  EXPECT_LT(exponential.ttft_tail_s, heavy.ttft_tail_s);
  EXPECT_DOUBLE_EQ(fixed.step_s, heavy.step_s);
  // The waits scale by (1 + cv2 x share^2) / 2 with share = output x step / service.
  const double prefill = prefill_time(r, 1000, 1000).value();
  const double share = 250 * fixed.step_s / (prefill + 250 * fixed.step_s);
  const double base = prefill + prefill_wait_quantile(t.requests_per_s * prefill, prefill, 0.99);
  EXPECT_NEAR((heavy.ttft_tail_s - base) / (fixed.ttft_tail_s - base), 1 + 4 * share * share, 1e-6);
}

// p90 = 3 x mean is beyond any log-normal (at most e^{1.28155^2 / 2} = 2.27 x): the mean is read
// as the median, so the median is 1000 and the p90 still 3000.
TEST(Lengths, HeavierTailsKeepTheP90) {
  EXPECT_NEAR(lognormal_quantile(1000, 3000, 0.9), 3000, 1e-6);
  EXPECT_NEAR(lognormal_quantile(1000, 3000, 0.5), 1000, 1e-6);
}

TEST(Load, LongTailPromptsRaiseTheTtftTail) {
  const auto r = llama8b("h100-sxm-80gb");
  Traffic t = kChat;
  t.requests_per_s = 1e-4;
  const auto even = at_load(r, 64, t, 0.9);
  t.input_tail_tokens = 4000;
  const auto spread = at_load(r, 64, t, 0.9);
  EXPECT_NEAR(spread.ttft_tail_s, prefill_time(r, 4000, 4000).value(), 1e-9);
  EXPECT_GT(spread.ttft_tail_s, even.ttft_tail_s);
  EXPECT_EQ(spread.ttft_p50_s, even.ttft_p50_s);
}

}  // namespace
}  // namespace aicost::serving
