// Load, SLA and capacity of serving replicas.
#include <gtest/gtest.h>

#include <cmath>

#include "aicost/serving/capacity.h"
#include "replica_support.h"

namespace aicost::serving {
namespace {

Replica llama8b(const char* gpu, catalog::Precision p = catalog::Precision::kBf16) {
  Replica r =
      testing::replica_of("llama3.1-8b", gpu, (**testing::builtin_catalog().gpu(gpu)).generation);
  r.weights = r.kv_cache = p;
  return r;
}

const Traffic kChat{core::PerSecond(0), 1000, 250};

// M/M/1: the probability of waiting is the utilisation; M/M/2 at a = 1: 1/3 (textbook value).
TEST(ErlangC, TextbookValues) {
  EXPECT_NEAR(erlang_c(1, 0.7), 0.7, 1e-12);
  EXPECT_NEAR(erlang_c(2, 1.0), 1.0 / 3, 1e-12);
  EXPECT_EQ(erlang_c(4, 4.0), 1.0);
}

TEST(Load, ATrickleSeesBareLatencies) {
  const auto r = llama8b("h100-sxm-80gb");
  Traffic t = kChat;
  t.request_rate = core::per_second(1e-4);
  const auto p = at_load(r, 64, t, 0.9);
  ASSERT_FALSE(p.saturated);
  EXPECT_NEAR(p.ttft_tail.value(), prefill_time(r, 1000, 1000).value(), 1e-9);
  EXPECT_NEAR(p.step.value(), decode_step_time(r, 1, 1125).value(), 1e-6);
}

TEST(Load, TailsRiseTowardsSaturationThenSaturate) {
  const auto r = llama8b("h100-sxm-80gb");
  Traffic t = kChat;
  double previous = 0;
  bool saturated = false;
  for (double rate = 1; rate < 400 && !saturated; rate *= 1.5) {
    t.request_rate = core::per_second(rate);
    const auto p = at_load(r, 64, t, 0.9);
    saturated = p.saturated;
    if (!saturated) {
      EXPECT_GE(p.ttft_tail.value(), previous) << rate;
      previous = p.ttft_tail.value();
    }
  }
  EXPECT_TRUE(saturated);
}

TEST(Sla, MaxRateIsTheEdge) {
  const auto r = llama8b("h100-sxm-80gb");
  const Sla sla{core::seconds(0.5), core::seconds(0.05), 0.9};
  const double rate = max_rate_within_sla(r, 64, kChat, sla).value();
  ASSERT_GT(rate, 0);
  Traffic t = kChat;
  t.request_rate = core::per_second(rate);
  const auto at = at_load(r, 64, t, 0.9);
  EXPECT_FALSE(at.saturated);
  EXPECT_LE(at.ttft_tail.value(), sla.ttft.value());
  EXPECT_LE(at.step.value(), sla.tpot.value());
  t.request_rate = core::per_second(rate * 1.05);
  const auto over = at_load(r, 64, t, 0.9);
  EXPECT_TRUE(over.saturated || over.ttft_tail.value() > sla.ttft.value() ||
              over.step.value() > sla.tpot.value());
}

// A TTFT target below the bare prefill time cannot be met by any number of replicas.
TEST(Sla, UnreachableTargetHasNoRate) {
  const auto r = llama8b("h100-sxm-80gb");
  EXPECT_EQ(max_rate_within_sla(r, 64, kChat, Sla{core::seconds(1e-4), {}, 0.9}).value(), 0);
}

TEST(Capacity, PicksTheCheaperOptionAndScalesReplicas) {
  std::vector<DeploymentOption> options = {
      {llama8b("h100-sxm-80gb"), core::usd_per_hour(3.0), "h100", ""},
      {llama8b("h100-sxm-80gb"), core::usd_per_hour(2.0), "same GPU, cheaper", ""}};
  Traffic t = kChat;
  t.request_rate = core::per_second(50);
  const Sla sla{core::seconds(1.0), core::seconds(0.05), 0.9};
  const auto d = cheapest_deployment(options, {16, 32, 64, 128}, t, sla);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->option, 1);
  EXPECT_FALSE(d->load.saturated);
  // Monthly cost = replicas x 1 GPU x 2 USD/h x 730 h.
  EXPECT_DOUBLE_EQ(d->monthly.value(), d->replicas * 2.0 * 730);
  t.request_rate = core::per_second(200);
  const auto bigger = cheapest_deployment(options, {16, 32, 64, 128}, t, sla);
  ASSERT_TRUE(bigger);
  EXPECT_GE(bigger->replicas, 3 * d->replicas);
  EXPECT_FALSE(cheapest_deployment(options, {16}, t, Sla{core::seconds(1e-4), {}, 0.9}));
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
  t.request_rate = core::per_second(1e-4);
  t.prefix_cache_hit = 0.75;
  const auto p = at_load(r, 64, t, 0.9);
  EXPECT_NEAR(p.ttft_tail.value(), prefill_time(r, 250, 1000).value(), 1e-9);
}

// A response-cache hit of h removes h of the requests before the replicas: the deployment is
// the one for (1 - h) of the traffic, its per-token prices fall by (1 - h) because every token
// delivered counts, and a scaling policy sees each replica cover 1 / (1 - h) more requests.
TEST(Capacity, ResponseCacheHitsRemoveRequests) {
  std::vector<DeploymentOption> options = {
      {llama8b("h100-sxm-80gb"), core::usd_per_hour(2.0), "h100", ""}};
  const Sla sla{core::seconds(1.0), core::seconds(0.05), 0.9};
  Traffic all = kChat;
  all.request_rate = core::per_second(200);
  all.response_cache_hit = 0.25;
  Traffic misses = kChat;
  misses.request_rate = core::per_second(150);
  const auto cached = cheapest_deployment(options, {16, 32, 64, 128}, all, sla);
  const auto uncached = cheapest_deployment(options, {16, 32, 64, 128}, misses, sla);
  ASSERT_TRUE(cached && uncached);
  EXPECT_EQ(cached->replicas, uncached->replicas);
  EXPECT_EQ(cached->max_batch, uncached->max_batch);
  EXPECT_DOUBLE_EQ(cached->rate_per_replica.value(), uncached->rate_per_replica.value());
  EXPECT_NEAR(cached->per_million_tokens.value(), uncached->per_million_tokens.value() * 0.75,
              1e-9);
  EXPECT_NEAR(cached->per_million_output_tokens.value(),
              uncached->per_million_output_tokens.value() * 0.75, 1e-9);
  EXPECT_NEAR(replica_capacity(options[0], *cached, all, sla).value(),
              max_rate_within_sla(options[0].replica, cached->max_batch, all, sla).value() / 0.75,
              1e-9);
}

// One client alone: its TTFT is its prefill, and its steps are stretched by its own prefill
// share X x prefill, where X = 1 / (prefill + output x step) requests per second.
TEST(ClosedLoop, OneClientIsItsOwnLoad) {
  const auto r = llama8b("h100-sxm-80gb");
  const auto p = closed_loop(r, 64, kChat, 1);
  const double prefill = prefill_time(r, 1000, 1000).value();
  EXPECT_DOUBLE_EQ(p.running, 1);
  EXPECT_FALSE(p.slot_bound);
  EXPECT_NEAR(p.ttft.value(), prefill, 1e-12);
  EXPECT_NEAR(p.request_rate.value(), 1 / (prefill + 250 * p.tpot.value()),
              1e-6 * p.request_rate.value());
  const double rho = p.request_rate.value() * prefill;
  EXPECT_NEAR(p.tpot.value(), decode_step_time(r, 1, 1125).value() / (1 - rho),
              1e-6 * p.tpot.value());
  EXPECT_NEAR(p.output_token_rate.value(), 250 * p.request_rate.value(), 1e-9);
}

// Past the batch limit the replica runs `max_batch` sequences whatever the number of clients:
// throughput stays put and each extra client waits one more 1 / X (Little's law).
TEST(ClosedLoop, ClientsBeyondTheSlotsOnlyWait) {
  const auto r = llama8b("h100-sxm-80gb");
  const auto at = [&](int clients) { return closed_loop(r, 32, kChat, clients); };
  EXPECT_FALSE(at(32).slot_bound);
  EXPECT_TRUE(at(33).slot_bound);
  EXPECT_DOUBLE_EQ(at(40).request_rate.value(), at(32).request_rate.value());
  EXPECT_NEAR(at(40).ttft.value() - at(32).ttft.value(), 8 / at(32).request_rate.value(), 1e-9);
  EXPECT_GT(at(32).output_token_rate.value(), at(16).output_token_rate.value());
  EXPECT_GT(at(32).tpot.value(), at(16).tpot.value());
}

// The end-to-end tail is the TTFT tail plus output x TPOT; a target below it is missed.
TEST(Sla, EndToEndTargetIsChecked) {
  const auto r = llama8b("h100-sxm-80gb");
  Traffic t = kChat;
  t.request_rate = core::per_second(1e-4);
  const auto p = at_load(r, 64, t, 0.9);
  EXPECT_NEAR(p.e2e_tail.value(), p.ttft_tail.value() + 250 * p.step.value(), 1e-12);
  EXPECT_EQ(max_rate_within_sla(r, 64, kChat, Sla{{}, {}, 0.9, p.e2e_tail * 0.9}).value(), 0);
  EXPECT_GT(max_rate_within_sla(r, 64, kChat, Sla{{}, {}, 0.9, p.e2e_tail * 2}).value(), 0);
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
  const core::Seconds prefill = core::seconds(0.2);
  EXPECT_NEAR(prefill_wait_mean(0.5, prefill, 0).value(), 0.5 * 0.2 / (2 * 0.5), 1e-12);
  EXPECT_NEAR(prefill_wait_mean(0.5, prefill, 1).value(),
              2 * prefill_wait_mean(0.5, prefill, 0).value(), 1e-12);
  EXPECT_NEAR(prefill_wait_quantile(0.5, prefill, 0.9, 1).value(),
              2 * prefill_wait_quantile(0.5, prefill, 0.9, 0).value(), 1e-12);
  EXPECT_EQ(prefill_wait_quantile(0.05, prefill, 0.9).value(), 0);  // P(wait) = 0.05 < 10 %
}

// Near saturation the slot wait follows Allen-Cunneen: answers of fixed length (cv2 = 0) wait
// less than exponential ones (1), and a heavy tail (4) more; TPOT does not depend on the spread.
TEST(Queues, SlotWaitGrowsWithTheSpreadOfAnswers) {
  const auto r = llama8b("h100-sxm-80gb");
  const Sla sla{core::seconds(10), core::seconds(1), 0.99};
  Traffic t = kChat;
  t.request_rate =
      0.995 * max_rate_within_sla(r, 8, t, Sla{{}, {}, 0.99});  // just below saturation
  auto tail = [&](double cv2) {
    Traffic u = t;
    u.output_cv2 = cv2;
    return at_load(r, 8, u, sla.percentile);
  };
  const auto fixed = tail(0), exponential = tail(1), heavy = tail(4);
  ASSERT_FALSE(exponential.saturated);
  EXPECT_LT(fixed.ttft_tail.value(), exponential.ttft_tail.value());
  EXPECT_LT(exponential.ttft_tail.value(), heavy.ttft_tail.value());
  EXPECT_DOUBLE_EQ(fixed.step.value(), heavy.step.value());
  // The waits scale by (1 + cv2 x share^2) / 2 with share = output x step / service.
  const double prefill = prefill_time(r, 1000, 1000).value();
  const double share = 250 * fixed.step.value() / (prefill + 250 * fixed.step.value());
  const double base =
      prefill +
      prefill_wait_quantile(t.request_rate.value() * prefill, core::seconds(prefill), 0.99).value();
  EXPECT_NEAR((heavy.ttft_tail.value() - base) / (fixed.ttft_tail.value() - base),
              1 + 4 * share * share, 1e-6);
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
  t.request_rate = core::per_second(1e-4);
  const auto even = at_load(r, 64, t, 0.9);
  t.input_tail_tokens = 4000;
  const auto spread = at_load(r, 64, t, 0.9);
  EXPECT_NEAR(spread.ttft_tail.value(), prefill_time(r, 4000, 4000).value(), 1e-9);
  EXPECT_GT(spread.ttft_tail.value(), even.ttft_tail.value());
  EXPECT_EQ(spread.ttft_p50.value(), even.ttft_p50.value());
}

}  // namespace
}  // namespace aicost::serving
