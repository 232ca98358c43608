// The owned-server sections of a catalog file: servers with price and power, and the defaults of
// an owned-pricing plan, each figure with its source, date, kind and weakness.
#include "owned_catalog.h"

#include <algorithm>
#include <limits>

namespace aicost::config {

using core::UnitKind;

namespace {

constexpr int kNone = std::numeric_limits<int>::max();  // a fabric tier without a limit

core::Status read_sourcing(MapReader& r, catalog::Sourcing& s) {
  TRY_ASSIGN(s.kind, r.string("kind"));
  TRY_ASSIGN(s.weak, r.boolean("weak"));
  AICOST_TRY_STATUS(read_provenance(r, s.provenance));
  if (s.kind.empty()) {
    return r.source().error(r.self().Mark(), "entry in '" + r.path() +
                                                 "' has no 'kind' (list, street, spec, survey, "
                                                 "est: <who>, derived or assumption)");
  }
  return {};
}

// A default: `{value: <quantity>, kind, weak, source, date, note}`.
template <class T, class Read>
core::Status read_default(MapReader& parent, const char* key, catalog::Sourced<T>& out, Read read) {
  const YAML::Node n = parent.node(key);
  if (!n || n.IsNull()) return {};
  MapReader r(n, parent.path() + "." + key, parent.source());
  if (!n.IsMap()) return r.not_a_map();
  if (!r.has("value")) return r.source().error(n.Mark(), "'" + r.path() + "' has no 'value'");
  AICOST_TRY_STATUS(read(r, out.value));
  AICOST_TRY_STATUS(read_sourcing(r, out.sourcing));
  return r.finish();
}

template <class T>
auto quantity(UnitKind kind) {
  return [kind](MapReader& r, T& v) { return r.read("value", kind, v); };
}

auto share(MapReader& r, double& v) -> core::Status {
  TRY_ASSIGN(v, r.quantity("value", UnitKind::kPercent));
  return {};
}

}  // namespace

core::Status read_server(MapReader& r, catalog::Catalog& cat) {
  catalog::Server s;
  TRY_ASSIGN(s.id, r.string("id"));
  TRY_ASSIGN(s.name, r.string("name"));
  if (auto a = r.node("aliases"); a && a.IsSequence()) {
    for (const auto& e : a) s.aliases.push_back(e.Scalar());
  } else if (a && !a.IsNull()) {
    return r.source().error(a.Mark(), "'aliases' must be a list");
  }
  TRY_ASSIGN(s.gpu, r.string("gpu"));
  TRY_ASSIGN(s.gpus, r.integer("gpus"));
  AICOST_TRY_STATUS(r.read("price", UnitKind::kMoney, s.price));
  AICOST_TRY_STATUS(read_sourcing(r, s.price_sourcing));
  if (const YAML::Node p = r.node("power"); p && !p.IsNull()) {
    MapReader pr(p, r.path() + ".power", r.source());
    if (!p.IsMap()) return pr.not_a_map();
    AICOST_TRY_STATUS(pr.read("max", UnitKind::kPower, s.max_power, true));
    AICOST_TRY_STATUS(pr.read("training", UnitKind::kPower, s.training_power, true));
    AICOST_TRY_STATUS(pr.read("idle", UnitKind::kPower, s.idle_power));
    AICOST_TRY_STATUS(read_sourcing(pr, s.power_sourcing));
    AICOST_TRY_STATUS(pr.finish());
    if (s.max_power.value() <= 0 || s.training_power.value() <= 0) {
      return pr.source().error(p.Mark(), "'" + pr.path() + "' needs max and training");
    }
  }
  if (s.id.empty() || s.gpu.empty() || s.gpus <= 0) {
    return r.source().error(r.self().Mark(), "server entry needs id, gpu and gpus >= 1");
  }
  if (!s.priced() && s.price_sourcing.provenance.note.empty()) {
    return r.source().error(r.self().Mark(),
                            "server '" + s.id + "' has no price: its note must say why");
  }
  cat.add(std::move(s));
  return {};
}

core::Status read_owned_defaults(MapReader& r, catalog::Catalog& cat) {
  catalog::OwnedDefaults d = cat.owned_defaults();
  AICOST_TRY_STATUS(read_default(r, "amortisation", d.amortisation,
                                 quantity<core::Seconds>(UnitKind::kDuration)));
  AICOST_TRY_STATUS(read_default(r, "residual", d.residual, share));
  AICOST_TRY_STATUS(read_default(r, "utilisation", d.utilisation, share));
  AICOST_TRY_STATUS(read_default(r, "pue", d.pue, [](MapReader& m, double& v) -> core::Status {
    TRY_ASSIGN(v, m.ratio("value", "1.3"));
    return {};
  }));
  AICOST_TRY_STATUS(read_default(r, "electricity", d.electricity,
                                 quantity<core::UsdPerJoule>(UnitKind::kEnergyPrice)));
  AICOST_TRY_STATUS(read_default(r, "colocation", d.colocation,
                                 quantity<core::UsdPerJoule>(UnitKind::kPowerPrice)));
  AICOST_TRY_STATUS(
      read_default(r, "support", d.support_per_year, [](MapReader& m, double& v) -> core::Status {
        TRY_ASSIGN(v, m.quantity("value", UnitKind::kPercentPerYear));
        return {};
      }));
  if (const YAML::Node list = r.node("fabric"); list && !list.IsNull()) {
    if (!list.IsSequence())
      return r.source().error(list.Mark(), "'owned_defaults.fabric' must be a list");
    d.fabric.clear();
    int i = 0;
    for (const auto& entry : list) {
      MapReader t(entry, "owned_defaults.fabric[" + std::to_string(i++) + "]", r.source());
      if (!entry.IsMap()) return t.not_a_map();
      catalog::FabricTier tier;
      TRY_ASSIGN(tier.max_gpus, t.integer("max_gpus"));
      AICOST_TRY_STATUS(t.read("per_gpu", UnitKind::kMoney, tier.per_gpu));
      AICOST_TRY_STATUS(read_sourcing(t, tier.sourcing));
      AICOST_TRY_STATUS(t.finish());
      d.fabric.push_back(std::move(tier));
    }
    // Smallest limit first; the tier without a limit last.
    std::stable_sort(d.fabric.begin(), d.fabric.end(), [](const auto& a, const auto& b) {
      return (a.max_gpus == 0 ? kNone : a.max_gpus) < (b.max_gpus == 0 ? kNone : b.max_gpus);
    });
  }
  d.loaded = true;
  cat.set_owned_defaults(std::move(d));
  return r.finish();
}

}  // namespace aicost::config
