// serving.traffic_profile and serving.autoscaling of a serving plan (serving_plan.cc reads the
// rest).
#include <charconv>
#include <cmath>
#include <filesystem>

#include "aicost/config/catalog_loader.h"
#include "aicost/config/serving_plan.h"
#include "csv.h"
#include "plan_sections.h"

namespace aicost::config {

namespace {

using core::UnitKind;

// A CSV of requests per second, one row a minute, the rate in the last column; a first row that
// is not a rate is its header.
core::Status read_traffic_csv(const std::string& path, std::vector<double>& rps) {
  auto text = read_file(path);
  if (!text) return text.error();
  AICOST_TRY_STATUS(
      read_csv(*text, path, [&](const std::vector<std::string>& row, int line) -> core::Status {
        const std::string cell = row.empty() ? std::string() : row.back();
        double v = 0;
        const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
        if (ec == std::errc() && end == cell.data() + cell.size() && std::isfinite(v) && v >= 0) {
          rps.push_back(v);
          return {};
        }
        if (line == 1) return {};  // the header
        return core::make_error_at(
            core::ErrorCode::kParse,
            "requests per second must be a non-negative number, got '" + cell + "'",
            {path, line, 0, ""});
      }));
  if (rps.empty())
    return core::make_error_at(
        core::ErrorCode::kInvalidInput,
        "the traffic profile has no rows: write one rate in requests per second "
        "a minute, e.g. 'minute,rps' then '0,12.5'",
        {path, 0, 0, ""});
  return {};
}

}  // namespace

core::Status read_traffic_profile(MapReader& s, const std::string& dir, ServingPlan& plan) {
  MapReader t(s.node("traffic_profile"), "serving.traffic_profile", s.source());
  if (t.self().IsNull() || !t.self()) {
    // Without a profile the fleet is the deployment around the clock: no policy to choose.
    if (auto a = s.node("autoscaling"); a && a.IsMap() && a["policy"]) {
      return s.source().error(
          a["policy"].Mark(),
          "serving.autoscaling.policy needs a serving.traffic_profile to scale over");
    }
    s.accept("autoscaling");
    return {};
  }
  if (!t.self().IsMap()) return t.not_a_map();
  std::optional<std::string> csv;
  TRY_ASSIGN(csv, t.string("csv"));
  if (csv) {
    std::filesystem::path file(*csv);
    if (file.is_relative()) file = std::filesystem::path(dir.empty() ? "." : dir) / file;
    AICOST_TRY_STATUS(read_traffic_csv(file.string(), plan.series.rps));
  } else {
    serving::SyntheticTraffic syn;
    syn.mean_rate = plan.traffic.request_rate;
    TRY_ASSIGN(syn.days, t.integer("days"));
    if (t.has("peak_to_trough")) {
      double v = 0;
      if (!YAML::convert<double>::decode(t.node("peak_to_trough"), v) || v < 1) {
        return s.source().error(t.node("peak_to_trough").Mark(),
                                "peak_to_trough is a ratio >= 1, e.g. 3");
      }
      syn.peak_to_trough = v;
    }
    TRY_ASSIGN(syn.peak_hour, t.quantity("peak_hour", UnitKind::kCount));
    TRY_ASSIGN(syn.weekend_factor, t.quantity("weekend_factor", UnitKind::kPercent));
    TRY_ASSIGN(syn.growth_per_month, t.quantity("growth_per_month", UnitKind::kPercent));
    if (auto spikes = t.node("spikes"); spikes && spikes.IsSequence()) {
      for (const auto& e : spikes) {
        MapReader sp(e, "serving.traffic_profile.spikes", s.source());
        serving::SyntheticTraffic::Spike spike;
        TRY_ASSIGN(spike.day, sp.integer("day"));
        double f = 0;
        if (!e["factor"] || !YAML::convert<double>::decode(e["factor"], f) || f <= 0) {
          return s.source().error(e.Mark(),
                                  "a spike needs day and factor (e.g. {day: 12, factor: 5})");
        }
        sp.accept("factor");
        spike.factor = f;
        AICOST_TRY_STATUS(sp.finish());
        syn.spikes.push_back(spike);
      }
    }
    plan.series = serving::synthetic(syn);
  }
  AICOST_TRY_STATUS(t.finish());
  // Autoscaling settings shared by the simulated policies.
  MapReader a(s.node("autoscaling"), "serving.autoscaling", s.source());
  if (!a.self().IsNull() && a.self() && !a.self().IsMap()) return a.not_a_map();
  serving::Policy base;
  auto spot_defaults = default_serving_spot();
  if (!spot_defaults) return spot_defaults.error();
  base.spot_price_ratio = spot_defaults->price_ratio;
  base.spot_interruptions_per_hour = spot_defaults->interruptions_per_hour;
  core::Seconds cold(base.cold_start_min * 60.0), cool(base.cooldown_min * 60.0);
  AICOST_TRY_STATUS(a.read("cold_start", UnitKind::kDuration, cold));
  AICOST_TRY_STATUS(a.read("cooldown", UnitKind::kDuration, cool));
  base.cold_start_min = static_cast<int>(std::ceil(cold.value() / 60));
  base.cooldown_min = static_cast<int>(std::ceil(cool.value() / 60));
  TRY_ASSIGN(base.target_utilization, a.quantity("target_utilization", UnitKind::kPercent));
  TRY_ASSIGN(base.headroom, a.quantity("headroom", UnitKind::kPercent));
  TRY_ASSIGN(base.min_replicas, a.integer("min_replicas"));
  TRY_ASSIGN(base.max_replicas, a.integer("max_replicas"));
  double spot = 0.5;
  TRY_ASSIGN(spot, a.quantity("spot_share", UnitKind::kPercent));
  plan.spot_price_given = a.has("spot_price");
  TRY_ASSIGN(base.spot_price_ratio, a.quantity("spot_price", UnitKind::kPercent));
  // The policy the plan runs its fleet by (its cost is the plan's); pricing.spot_share is read
  // with the pricing section.
  std::optional<std::string> policy;
  TRY_ASSIGN(policy, a.string("policy"));
  plan.policy = base;
  plan.policy.kind = serving::PolicyKind::kStaticPeak;
  if (policy) {
    auto kind = serving::policy_kind_from_string(*policy);
    if (!kind) {
      return s.source().error(a.node("policy").Mark(),
                              "serving.autoscaling.policy must be static-peak, reactive, scheduled "
                              "or predictive, got '" +
                                  *policy + "'");
    }
    plan.policy.kind = *kind;
  }
  if (a.self() && !a.self().IsNull()) AICOST_TRY_STATUS(a.finish());
  for (auto p : serving::default_policies()) {
    const auto kind = p.kind;
    const bool spot_policy = p.spot_share > 0;
    const std::string name = p.name;
    p = base;
    p.kind = kind;
    p.name = spot_policy ? "reactive + " + std::to_string(static_cast<int>(spot * 100)) + "% spot"
                         : name;
    p.spot_share = spot_policy ? spot : 0;
    plan.policies.push_back(p);
  }
  return {};
}

}  // namespace aicost::config
