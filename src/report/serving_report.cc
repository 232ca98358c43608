#include "aicost/report/serving_report.h"
#include "aicost/report/estimate_report.h"
#include "aicost/report/html.h"

#include <fmt/format.h>

#include <optional>

#include "aicost/core/quantity.h"
#include "aicost/core/text.h"
#include "aicost/report/table.h"
#include "chart_parts.h"
#include "estimate_parts.h"
#include "json.h"
#include "rounding.h"

namespace aicost::report {

std::string option_name(const serving::DeploymentOption& o) {
  return fmt::format("{} TP{} {}", o.replica.gpu.id, o.replica.tensor_parallel,
                     catalog::to_string(o.replica.weights));
}

namespace {

// ", 30 % of prompt tokens from the prefix cache, 20 % of requests from the response cache".
std::string cache_note(const serving::Traffic& t) {
  std::string s;
  if (t.prefix_cache_hit > 0) {
    s += fmt::format(", {:.0f} % of prompt tokens from the prefix cache", t.prefix_cache_hit * 100);
  }
  if (t.response_cache_hit > 0) {
    s += fmt::format(", {:.0f} % of requests answered from the response cache",
                     t.response_cache_hit * 100);
  }
  return s;
}

// "  decoding speculative: ..." when the options speculate (they all do alike), else "".
std::string speculation_note(const std::vector<serving::DeploymentOption>& options) {
  if (options.empty() || options.front().replica.speculation.draft_tokens <= 0) return "";
  const auto& sp = options.front().replica.speculation;
  return fmt::format(
      "  decoding speculative: {} draft tokens accepted at {:.0f} % ({:.2f} tokens a verify step), "
      "a draft step {:.0f} % of a target step\n",
      sp.draft_tokens, sp.acceptance * 100, sp.tokens_per_step(), sp.draft_cost * 100);
}

Json deployment_json_point(const ServingView& v, const serving::Deployment& d);

// The option's interval as ratios of the times shown. With --conservative the times shown are
// already the pessimistic end (nominal x hi), so the interval is [lo / hi, 1] of them.
std::optional<perf::Interval> interval_of(const ServingView& v, const serving::Deployment& d) {
  if (v.option_intervals.size() <= static_cast<size_t>(d.option)) return std::nullopt;
  perf::Interval b = v.option_intervals[d.option];
  if (!b.known) return std::nullopt;
  if (v.conservative && b.hi > 1) {
    b.lo /= b.hi;
    b.hi = 1;
  }
  return b;
}

// The interval note of the cheapest deployment.
std::string serving_interval_note(const perf::Interval& b, bool conservative) {
  std::string n = interval_note(b);
  n = "times: " + n + "; at the same load (queueing makes the tail grow faster than the ratio)";
  if (conservative) {
    n += fmt::format(
        "; --conservative: sized with every time {:.0f} % slower (the band's pessimistic end)",
        (b.hi - 1) * 100);
  }
  return n;
}

// The deployment's figures, then the 80 % intervals of its times.
Json deployment_json(const ServingView& v, const serving::Deployment& d) {
  Json j = deployment_json_point(v, d);
  const auto b = interval_of(v, d);
  auto pair = [&](double x) {
    return b ? Json::array({sig(x * b->lo), sig(x * b->hi)}) : Json(nullptr);
  };
  j["ttft_p50_s_interval"] = pair(d.load.ttft_p50.value());
  j["ttft_tail_s_interval"] = pair(d.load.ttft_tail.value());
  j["tpot_s_interval"] = pair(d.load.step.value());
  j["e2e_tail_s_interval"] = pair(d.load.e2e_tail.value());
  // Tokens per second per replica at the batch it runs: the inverse of the time ratio.
  const double tps = d.load.step.value() > 0 ? d.load.concurrency / d.load.step.value() : 0;
  j["output_tokens_per_s_per_replica"] = sig(tps);
  j["output_tokens_per_s_per_replica_interval"] =
      b ? Json::array({sig(tps / b->hi), sig(tps / b->lo)}) : Json(nullptr);
  j["interval"] = b ? interval_json(*b) : Json(nullptr);
  j["conservative"] = v.conservative;
  return j;
}

Json deployment_json_point(const ServingView& v, const serving::Deployment& d) {
  const auto& o = (*v.options)[d.option];
  return {{"gpu", o.replica.gpu.id},
          {"tensor_parallel_size", o.replica.tensor_parallel},
          {"precision", catalog::to_string(o.replica.weights)},
          {"kv_cache_precision", catalog::to_string(o.replica.kv_cache)},
          {"speculative",
           o.replica.speculation.draft_tokens > 0
               ? Json{{"draft_tokens", o.replica.speculation.draft_tokens},
                      {"acceptance", o.replica.speculation.acceptance},
                      {"draft_cost", o.replica.speculation.draft_cost},
                      {"tokens_per_verify_step", sig(o.replica.speculation.tokens_per_step())}}
               : Json()},
          {"max_batch", d.max_batch},
          {"replicas", d.replicas},
          {"gpus", d.replicas * o.replica.tensor_parallel},
          {"price_basis", o.price_basis},
          {"requests_per_s_per_replica", sig(d.rate_per_replica.value())},
          {"concurrency_per_replica", sig(d.load.concurrency)},
          {"ttft_p50_s", sig(d.load.ttft_p50.value())},
          {"ttft_tail_s", sig(d.load.ttft_tail.value())},
          {"tpot_s", sig(d.load.step.value())},
          {"e2e_mean_s", sig(d.load.e2e.value())},
          {"e2e_tail_s", sig(d.load.e2e_tail.value())},
          {"output_tokens_per_s", sig(v.traffic->request_rate.value() * v.traffic->output_tokens)},
          {"monthly_usd", cents(d.monthly.value())},
          {"usd_per_million_input_tokens", sig(d.per_million_input_tokens.value())},
          {"usd_per_million_output_tokens", sig(d.per_million_output_tokens.value())},
          {"usd_per_million_tokens", sig(d.per_million_tokens.value())}};
}

std::string render_json(const ServingView& v) {
  Json j;
  j["schema_version"] = 1;
  j["plan"] = v.plan_name;
  j["traffic"] = {{"requests_per_s", v.traffic->request_rate.value()},
                  {"input_tokens", v.traffic->input_tokens},
                  {"output_tokens", v.traffic->output_tokens},
                  {"prefix_cache_hit", v.traffic->prefix_cache_hit},
                  {"response_cache_hit", v.traffic->response_cache_hit}};
  j["sla"] = {{"ttft_s", v.sla->ttft.value()},
              {"tpot_s", v.sla->tpot.value()},
              {"e2e_s", v.sla->e2e.value()},
              {"percentile", v.sla->percentile}};
  j["serving"] = v.best ? deployment_json(v, *v.best) : Json();
  Json options = Json::array();
  for (size_t i = 0; i < v.per_option.size(); ++i) {
    Json o = {{"option", option_name((*v.options)[i])}};
    if (v.per_option[i]) {
      o["deployment"] = deployment_json(v, *v.per_option[i]);
    } else {
      o["deployment"] = nullptr;
    }
    options.push_back(o);
  }
  j["options"] = options;
  Json m = Json::array();
  for (size_t r = 0; r < v.matrix.ttft_targets.size(); ++r) {
    Json row = {{"ttft_s", v.matrix.ttft_targets[r].value()}};
    Json cells = Json::array();
    for (size_t c = 0; c < v.matrix.rates.size(); ++c) {
      const auto& x = v.matrix.monthly[r][c];
      cells.push_back({{"requests_per_s", v.matrix.rates[c].value()},
                       {"monthly_usd", x ? Json(cents(x->value())) : Json()}});
    }
    row["cells"] = cells;
    m.push_back(row);
  }
  j["sla_cost_matrix"] = m;
  j["unreachable"] = v.unreachable.empty() ? Json() : Json(v.unreachable);
  Json policies = Json::array();
  for (const auto& p : v.policies) {
    policies.push_back({{"policy", p.name},
                        {"monthly_usd", cents(p.monthly.value())},
                        {"idle_share", sig(p.idle_share)},
                        {"over_sla_share", sig(p.over_sla_share)},
                        {"mean_replicas", sig(p.mean_replicas)},
                        {"peak_replicas", p.peak_replicas}});
  }
  j["policies"] = policies;
  j["replica_capacity_rps"] = sig(v.replica_capacity.value());
  // What the plan costs a month as it runs its fleet (serving/fleet.h).
  const bool priced = v.fleet && v.fleet->best;
  j["fleet"] = {
      {"monthly_usd", priced ? Json(cents(v.fleet->monthly.value())) : Json()},
      {"policy", priced && v.fleet->run ? Json(v.fleet_policy) : Json()},
      {"over_sla_share", priced && v.fleet->run ? Json(sig(v.fleet->run->over_sla_share)) : Json()},
      {"response_cache_monthly_usd",
       priced ? Json(cents(v.fleet->cache_monthly.value())) : Json()}};
  j["notes"] = v.notes;
  return json_text(j) + "\n";
}

}  // namespace

std::string render_serving(const ServingView& v, Format f) {
  if (f == Format::kJson) return render_json(v);
  if (f == Format::kHtml)
    return html_page("aicost estimate: " + v.plan_name, serving_charts(v),
                     render_serving(v, Format::kTable));
  Table opts;
  opts.title = "Options (cheapest batch limit and replica count each)";
  opts.header = {"option",       "max_batch", "replicas",    "gpus",
                 "ttft_tail_ms", "tpot_ms",   "monthly_usd", "usd_per_1m_out"};
  opts.right_align = {false, true, true, true, true, true, true, true};
  for (size_t i = 0; i < v.per_option.size(); ++i) {
    const auto& o = (*v.options)[i];
    const auto& d = v.per_option[i];
    if (!d) {
      const auto fits = serving::check(o.replica);
      const std::string why = fits ? "misses SLA"
                              : fits.error().code == core::ErrorCode::kInfeasible
                                  ? "does not fit"
                                  : std::string("no ") + catalog::to_string(o.replica.weights);
      opts.rows.push_back({option_name(o), "", "", "", "", "", why, ""});
      continue;
    }
    opts.rows.push_back({option_name(o), std::to_string(d->max_batch), std::to_string(d->replicas),
                         std::to_string(d->replicas * o.replica.tensor_parallel),
                         fmt::format("{:.0f}", d->load.ttft_tail.value() * 1000),
                         fmt::format("{:.1f}", d->load.step.value() * 1000),
                         core::group_digits(d->monthly.value()),
                         fmt::format("{:.2f}", d->per_million_output_tokens.value())});
  }
  if (f == Format::kCsv) return render(opts, f);
  std::string out = fmt::format(
      "aicost estimate (serving): {}\n  traffic  {:.4g} requests/s, {:.0f} input + {:.0f} output "
      "tokens{}\n"
      "  SLA      TTFT {} and TPOT {} at P{:.0f}\n{}",
      v.plan_name, v.traffic->request_rate.value(), v.traffic->input_tokens,
      v.traffic->output_tokens, cache_note(*v.traffic),
      v.sla->ttft.value() > 0 ? fmt::format("<= {:.0f} ms", v.sla->ttft.value() * 1000) : "any",
      v.sla->tpot.value() > 0 ? fmt::format("<= {:.0f} ms", v.sla->tpot.value() * 1000) : "any",
      v.sla->percentile * 100, speculation_note(*v.options));
  if (v.best) {
    const auto& d = *v.best;
    const auto& o = (*v.options)[d.option];
    Table t;
    t.title = "Cheapest deployment";
    t.header = {"", "value"};
    t.rows = {
        {"deployment", fmt::format("{} replica{} x {} (max batch {})", d.replicas,
                                   d.replicas == 1 ? "" : "s", option_name(o), d.max_batch)},
        {"GPUs", std::to_string(d.replicas * o.replica.tensor_parallel)},
        {"per replica", fmt::format("{:.3g} requests/s, {:.1f} sequences in flight",
                                    d.rate_per_replica.value(), d.load.concurrency)},
        {"TTFT", fmt::format("P50 {:.0f} ms, P{:.0f} {:.0f} ms", d.load.ttft_p50.value() * 1000,
                             v.sla->percentile * 100, d.load.ttft_tail.value() * 1000) +
                     (interval_of(v, d)
                          ? fmt::format(" (80 %: P50 {:.0f} .. {:.0f} ms)",
                                        d.load.ttft_p50.value() * 1000 * interval_of(v, d)->lo,
                                        d.load.ttft_p50.value() * 1000 * interval_of(v, d)->hi)
                          : "")},
        {"TPOT",
         fmt::format("{:.1f} ms", d.load.step.value() * 1000) +
             (interval_of(v, d) ? fmt::format(" (80 %: {:.1f} .. {:.1f} ms)",
                                              d.load.step.value() * 1000 * interval_of(v, d)->lo,
                                              d.load.step.value() * 1000 * interval_of(v, d)->hi)
                                : "")},
        {"end-to-end", fmt::format("mean {:.2f} s, P{:.0f} {:.2f} s", d.load.e2e.value(),
                                   v.sla->percentile * 100, d.load.e2e_tail.value())},
        {"monthly cost", fmt::format("{} USD ({:g} h)", core::group_digits(d.monthly.value()),
                                     core::kHoursPerMonth)},
        {"per 1M input tokens", fmt::format("{:.3f} USD (prefill's share of the time)",
                                            d.per_million_input_tokens.value())},
        {"per 1M output tokens",
         fmt::format("{:.2f} USD (decode and idle time)", d.per_million_output_tokens.value())},
        {"per 1M tokens (in + out)", fmt::format("{:.2f} USD", d.per_million_tokens.value())},
        {"price", o.price_basis}};
    // The plan's own total when it is not just the deployment around the clock.
    if (v.fleet && (v.fleet->run || v.fleet->cache_monthly.value() > 0)) {
      std::string how =
          v.fleet->run
              ? fmt::format("{} over the traffic profile ({:.2f} % of requests over the SLA)",
                            v.fleet_policy, v.fleet->run->over_sla_share * 100)
              : "the deployment";
      if (v.fleet->cache_monthly.value() > 0) {
        how += fmt::format(" + {} USD response cache",
                           core::group_digits(v.fleet->cache_monthly.value()));
      }
      t.rows.push_back(
          {"plan's monthly cost", core::group_digits(v.fleet->monthly.value()) + " USD: " + how});
    }
    out += "\n" + render(t, f);
    if (d.option < static_cast<int>(v.option_intervals.size()) &&
        v.option_intervals[d.option].known) {
      out += "note: " + serving_interval_note(v.option_intervals[d.option], v.conservative) + "\n";
    }
  } else {
    out += "\nNo deployment meets the SLA: " + v.unreachable + "\n";
  }
  out += "\n" + render(opts, f);
  Table m;
  m.title = "Cheapest monthly cost (USD) by TTFT target (rows) and load (columns)";
  m.header = {"ttft"};
  for (core::PerSecond r : v.matrix.rates) {
    m.header.push_back(fmt::format("{:.4g} req/s", r.value()));
  }
  m.right_align.assign(m.header.size(), true);
  for (size_t r = 0; r < v.matrix.ttft_targets.size(); ++r) {
    std::vector<std::string> row{fmt::format("{:.0f} ms", v.matrix.ttft_targets[r].value() * 1000)};
    for (const auto& x : v.matrix.monthly[r]) {
      row.push_back(x ? core::group_digits(x->value()) : "-");
    }
    m.rows.push_back(row);
  }
  out += "\n" + render(m, f);
  if (!v.policies.empty()) {
    Table t;
    t.title = fmt::format(
        "Scaling policies over the traffic profile (one replica serves {:.3g} requests/s within "
        "the SLA)",
        v.replica_capacity.value());
    t.header = {"policy",       "monthly_usd",   "idle_pct",
                "over_sla_pct", "mean_replicas", "peak_replicas"};
    t.right_align = {false, true, true, true, true, true};
    for (const auto& p : v.policies) {
      t.rows.push_back({p.name, core::group_digits(p.monthly.value()),
                        fmt::format("{:.1f}", p.idle_share * 100),
                        fmt::format("{:.2f}", p.over_sla_share * 100),
                        fmt::format("{:.1f}", p.mean_replicas), std::to_string(p.peak_replicas)});
    }
    out += "\n" + render(t, f);
  }
  for (const auto& n : v.notes) out += "note: " + n + "\n";
  return out;
}

std::string render_replicas_csv(const ServingView& v, const std::vector<double>& rps) {
  Table t;
  t.header = {"minute", "requests_per_s"};
  for (const auto& p : v.policies) t.header.push_back(p.name);
  for (size_t m = 0; m < rps.size(); ++m) {
    std::vector<std::string> row{std::to_string(m), fmt::format("{:.4g}", rps[m])};
    for (const auto& p : v.policies)
      row.push_back(m < p.replicas.size() ? std::to_string(p.replicas[m]) : "");
    t.rows.push_back(std::move(row));
  }
  return render(t, Format::kCsv);
}

}  // namespace aicost::report
