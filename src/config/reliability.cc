// The failure model: the shipped data/reliability.yaml and the plan's `reliability:` section.
#include <cmath>

#include <algorithm>

#include "aicost/core/suggest.h"
#include "aicost/core/text.h"
#include "plan_sections.h"
#include "yaml_source.h"

namespace aicost::config {

const std::vector<std::pair<std::string_view, std::string_view>>& embedded_files();

using core::UnitKind;

namespace {

core::Status read_model(MapReader& r, reliability::FailureModel& m) {
  r.accept("source");
  r.accept("date");
  r.accept("note");
  std::optional<std::string> dist;
  TRY_ASSIGN(dist, r.string("distribution"));
  if (dist) {
    if (*dist == "exponential")
      m.distribution = reliability::Distribution::kExponential;
    else if (*dist == "weibull")
      m.distribution = reliability::Distribution::kWeibull;
    else
      return r.source().error(r.node("distribution").Mark(),
                              "distribution must be exponential or weibull");
  }
  if (r.has("weibull_shape")) {
    double k = 0;
    if (!YAML::convert<double>::decode(r.node("weibull_shape"), k) || k <= 0) {
      return r.source().error(
          r.node("weibull_shape").Mark(),
          "weibull_shape is a positive number (a shape has no unit), e.g. 0.78");
    }
    m.weibull_shape = k;
  }
  core::Seconds every(0);
  AICOST_TRY_STATUS(r.read("maintenance_every", UnitKind::kDuration, every));
  if (r.has("maintenance_every")) {
    m.maintenance_per_day = every.value() > 0 ? core::kSecondsPerDay / every.value() : 0;
  }
  AICOST_TRY_STATUS(r.read("maintenance_downtime", UnitKind::kDuration, m.maintenance_downtime));
  return {};
}

core::Status read_causes(MapReader& r, reliability::FailureModel& m) {
  auto list = r.node("causes");
  if (!list || list.IsNull()) return {};
  if (!list.IsSequence()) return r.source().error(list.Mark(), "'causes' must be a list");
  m.causes.clear();
  for (const auto& entry : list) {
    MapReader c(entry, "causes", r.source());
    if (!entry.IsMap()) return c.not_a_map();
    reliability::FailureCause cause;
    TRY_ASSIGN(cause.name, c.string("name"));
    core::Seconds mtbf(0);
    AICOST_TRY_STATUS(c.read("per_gpu_mtbf", UnitKind::kDuration, mtbf, true));
    cause.per_gpu_hour = mtbf.value() > 0 ? core::kSecondsPerHour / mtbf.value() : 0;
    TRY_ASSIGN(cause.nodes_lost, c.integer("nodes_lost"));
    AICOST_TRY_STATUS(c.read("repair_time", UnitKind::kDuration, cause.repair_time));
    AICOST_TRY_STATUS(c.finish());
    m.causes.push_back(std::move(cause));
  }
  return {};
}

}  // namespace

namespace {

// `read` on one section of the shipped data/reliability.yaml.
template <class T, class Read>
core::Result<T> shipped_section(const char* section, Read read) {
  for (const auto& [name, text] : embedded_files()) {
    if (name != "reliability.yaml") continue;
    const std::string owned(text);
    const Source src = Source::from_text("<builtin>/data/reliability.yaml", owned);
    auto root = parse_yaml(src, owned);
    if (!root) return root.error();
    MapReader r((*root)[section], section, src);
    return read(r);
  }
  return core::make_error(core::ErrorCode::kInternal, "data/reliability.yaml is not built in");
}

}  // namespace

core::Result<reliability::FailureModel> default_failure_model() {
  return shipped_section<reliability::FailureModel>(
      "failure_model", [](MapReader& r) -> core::Result<reliability::FailureModel> {
        reliability::FailureModel m;
        AICOST_TRY_STATUS(read_model(r, m));
        AICOST_TRY_STATUS(read_causes(r, m));
        AICOST_TRY_STATUS(r.finish());
        return m;
      });
}

core::Result<core::Seconds> default_spot_preemption_mtbf() {
  return shipped_section<core::Seconds>(
      "spot_preemption", [](MapReader& r) -> core::Result<core::Seconds> {
        r.accept("source");
        r.accept("date");
        core::Seconds mtbf(0);
        AICOST_TRY_STATUS(r.read("per_node_mtbf", UnitKind::kDuration, mtbf, true));
        AICOST_TRY_STATUS(r.finish());
        if (mtbf.value() <= 0) {
          return core::make_error(core::ErrorCode::kInternal,
                                  "data/reliability.yaml has no spot_preemption.per_node_mtbf");
        }
        return mtbf;
      });
}

core::Result<reliability::RestartModel> default_restart_model() {
  return shipped_section<reliability::RestartModel>(
      "restart", [](MapReader& r) -> core::Result<reliability::RestartModel> {
        r.accept("source");
        r.accept("date");
        reliability::RestartModel m;
        AICOST_TRY_STATUS(r.read("detection", UnitKind::kDuration, m.detection, true));
        AICOST_TRY_STATUS(r.read("rescheduling", UnitKind::kDuration, m.rescheduling, true));
        AICOST_TRY_STATUS(r.read("initialisation", UnitKind::kDuration, m.initialisation, true));
        AICOST_TRY_STATUS(r.finish());
        return m;
      });
}

core::Result<SpotServingDefaults> default_serving_spot() {
  return shipped_section<SpotServingDefaults>(
      "serving_spot", [](MapReader& r) -> core::Result<SpotServingDefaults> {
        r.accept("source");
        r.accept("date");
        SpotServingDefaults d;
        core::Seconds mtbf(0);
        TRY_ASSIGN(d.price_ratio, r.quantity("price", UnitKind::kPercent));
        AICOST_TRY_STATUS(r.read("per_replica_mtbf", UnitKind::kDuration, mtbf, true));
        AICOST_TRY_STATUS(r.finish());
        if (d.price_ratio <= 0 || mtbf.value() <= 0) {
          return core::make_error(
              core::ErrorCode::kInternal,
              "data/reliability.yaml serving_spot needs price and per_replica_mtbf");
        }
        d.interruptions_per_hour = core::kSecondsPerHour / mtbf.value();
        return d;
      });
}

core::Status read_reliability(MapReader& r, const workload::TrainingJob& job,
                              const costing::ComputePricing& pricing,
                              costing::ReliabilityInputs& rel, std::vector<std::string>& warnings) {
  auto model = default_failure_model();
  if (!model) return model.error();
  rel.failures = *model;
  auto restart = default_restart_model();
  if (!restart) return restart.error();
  rel.restart = *restart;
  if (!r.self().IsNull() && !r.self().IsMap()) return r.not_a_map();
  AICOST_TRY_STATUS(read_model(r, rel.failures));
  AICOST_TRY_STATUS(read_causes(r, rel.failures));
  // gpu_mtbf scales every cause so that their sum has this per-GPU MTBF.
  core::Seconds mtbf(0);
  AICOST_TRY_STATUS(r.read("gpu_mtbf", UnitKind::kDuration, mtbf, true));
  if (mtbf.value() > 0) {
    double total = 0;
    for (const auto& c : rel.failures.causes) total += c.per_gpu_hour;
    const double target = core::kSecondsPerHour / mtbf.value();
    for (auto& c : rel.failures.causes) c.per_gpu_hour *= total > 0 ? target / total : 0;
  }
  // Per-cause MTBF overrides: `cause_mtbf: {gpu: 150000h}`.
  if (auto overrides = r.node("cause_mtbf"); overrides && !overrides.IsNull()) {
    MapReader o(overrides, "reliability.cause_mtbf", r.source());
    if (!overrides.IsMap()) return o.not_a_map();
    std::vector<std::string> names;
    for (const auto& c : rel.failures.causes) names.push_back(c.name);
    for (const auto& kv : overrides) {
      const std::string name = kv.first.Scalar();
      auto it = std::find_if(rel.failures.causes.begin(), rel.failures.causes.end(),
                             [&](const auto& c) { return c.name == name; });
      if (it == rel.failures.causes.end()) {
        return r.source().error(kv.first.Mark(), "unknown failure cause '" + name + "'." +
                                                     core::did_you_mean(name, names));
      }
      core::Seconds v(0);
      AICOST_TRY_STATUS(o.read(name, UnitKind::kDuration, v, true));
      it->per_gpu_hour = core::kSecondsPerHour / v.value();
    }
  }
  core::Seconds repair(0);
  AICOST_TRY_STATUS(r.read("repair_time", UnitKind::kDuration, repair));
  if (r.has("repair_time")) {
    for (auto& c : rel.failures.causes) {
      if (c.nodes_lost > 0) c.repair_time = repair;
    }
  }
  if (r.has("restart_time")) {
    core::Seconds total(0);
    AICOST_TRY_STATUS(r.read("restart_time", UnitKind::kDuration, total));
    rel.restart.fixed_total = total;
  }
  AICOST_TRY_STATUS(r.read("detection", UnitKind::kDuration, rel.restart.detection));
  AICOST_TRY_STATUS(r.read("rescheduling", UnitKind::kDuration, rel.restart.rescheduling));
  AICOST_TRY_STATUS(r.read("initialisation", UnitKind::kDuration, rel.restart.initialisation));
  AICOST_TRY_STATUS(r.read("checkpoint_read_bandwidth", UnitKind::kBandwidth,
                           rel.checkpoint_read_bandwidth, true));
  TRY_ASSIGN(rel.spare_nodes, r.integer("spare_nodes"));
  // Spot capacity is reclaimed by the provider: one more cause, per node (instance).
  core::Seconds preemption(0);
  AICOST_TRY_STATUS(r.read("spot_preemption_mtbf", UnitKind::kDuration, preemption, true));
  AICOST_TRY_STATUS(r.finish());
  const bool spot = pricing.mode == catalog::PricingMode::kSpot && !pricing.instance.empty();
  if (!spot) {
    if (preemption.value() > 0) {
      warnings.push_back(
          "reliability.spot_preemption_mtbf has no effect: the plan is not on a spot price");
    }
    return {};
  }
  if (preemption.value() <= 0) {
    auto d = default_spot_preemption_mtbf();
    if (!d) return d.error();
    preemption = *d;
    warnings.push_back(core::sprintf(
        "spot: one reclaim per node every %s h assumed (AWS Spot Instance Advisor band, weak; "
        "data/reliability.yaml); set reliability.spot_preemption_mtbf to your provider's rate",
        core::group_digits(core::in_hours(preemption)).c_str()));
  }
  reliability::FailureCause cause;
  cause.name = "spot-preemption";
  cause.per_gpu_hour = core::kSecondsPerHour / (preemption.value() * job.cluster.gpus_per_node);
  cause.nodes_lost = 1;
  cause.repair_time = core::Seconds(0);  // replaced from the spot pool at once (optimistic)
  rel.failures.causes.push_back(std::move(cause));
  return {};
}

}  // namespace aicost::config
