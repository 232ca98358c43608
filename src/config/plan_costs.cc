// Readers of the plan's money sections: storage, network, operations, services, reliability.
#include "aicost/core/text.h"
#include "plan_sections.h"

namespace aicost::config {

using core::UnitKind;

namespace {

// A storage price: an explicit `<prefix>_price`, a catalog id in `<prefix>_tier`, or the
// provider's first object-storage price.
core::Status storage_price(MapReader& r, const catalog::Catalog& cat, const std::string& provider,
                           const std::string& prefix, core::UsdPerByteSecond& out,
                           std::string& note) {
  double price = -1;
  TRY_ASSIGN(price, r.quantity(prefix + "_price", UnitKind::kStoragePrice));
  std::optional<std::string> tier;
  TRY_ASSIGN(tier, r.string(prefix + "_tier"));
  if (price >= 0) {
    out = core::UsdPerByteSecond(price);
    return {};
  }
  const catalog::StoragePrice* chosen = nullptr;
  if (tier) {
    auto t = cat.storage(*tier);
    if (!t) return r.source().error(r.node(prefix + "_tier").Mark(), t.error().message, t.error().code);
    chosen = *t;
  } else {
    for (const auto& s : cat.storage_prices()) {
      if (s.tier == "object" && catalog::normalize_name(s.provider) == provider) {
        chosen = &s;
        break;
      }
    }
    if (!chosen) {
      for (const auto& s : cat.storage_prices()) {
        if (s.tier == "object") {
          chosen = &s;
          break;
        }
      }
    }
  }
  if (chosen) {
    out = chosen->price;
    if (note.find(chosen->id) == std::string::npos) {
      note += (note.empty() ? "" : ", ") + chosen->id +
              core::sprintf(" %.4g USD/GB-month", chosen->price.value() * core::kGB * core::kSecondsPerMonth);
    }
  }
  return {};
}

const catalog::NetworkPrice* network_price(const catalog::Catalog& cat, const std::string& provider,
                                           const std::string& kind) {
  const catalog::NetworkPrice* any = nullptr;
  for (const auto& n : cat.network_prices()) {
    if (n.kind != kind) continue;
    if (catalog::normalize_name(n.provider) == provider) return &n;
    if (!any) any = &n;
  }
  return any;
}

}  // namespace

core::Status read_storage(MapReader& r, const catalog::Catalog& cat, const std::string& provider,
                          const workload::TrainingJob& job, costing::StorageInputs& s,
                          std::vector<std::string>& warnings) {
  if (!r.self().IsNull() && !r.self().IsMap()) return r.not_a_map();
  // Tokenised data: uint16 ids when the vocabulary fits, else int32 (Megatron .bin/.idx).
  const double bytes_per_token = job.model.vocab() <= 65535 ? 2 : 4;
  s.dataset = core::Bytes(job.tokens * bytes_per_token);
  s.checkpoint_write_bandwidth = core::gb_per_s(100);
  s.logs_per_day = core::gb(5);
  s.log_retention = core::days(30);
  AICOST_TRY_STATUS(r.read("dataset_size", UnitKind::kBytes, s.dataset));
  AICOST_TRY_STATUS(r.read("checkpoint_size", UnitKind::kBytes, s.checkpoint_size));
  AICOST_TRY_STATUS(r.read("checkpoint_interval", UnitKind::kDuration, s.checkpoint_interval, true));
  TRY_ASSIGN(s.checkpoints_retained, r.integer("checkpoints_retained"));
  AICOST_TRY_STATUS(r.read("checkpoint_write_bandwidth", UnitKind::kBandwidth,
                           s.checkpoint_write_bandwidth, true));
  TRY_ASSIGN(s.async_checkpoint, r.boolean("async_checkpoint"));
  AICOST_TRY_STATUS(r.read("logs_per_day", UnitKind::kBytes, s.logs_per_day));
  AICOST_TRY_STATUS(r.read("log_retention", UnitKind::kDuration, s.log_retention));
  AICOST_TRY_STATUS(storage_price(r, cat, provider, "dataset", s.dataset_price, s.tier_note));
  AICOST_TRY_STATUS(storage_price(r, cat, provider, "checkpoint", s.checkpoint_price, s.tier_note));
  AICOST_TRY_STATUS(storage_price(r, cat, provider, "log", s.log_price, s.tier_note));
  if (s.tier_note.empty() && s.dataset_price.value() == 0) {
    warnings.push_back("no storage price in the catalog or plan: storage is costed at 0");
  }
  return r.finish();
}

core::Status read_network(MapReader& r, const catalog::Catalog& cat, const std::string& provider,
                          costing::NetworkInputs& n) {
  if (!r.self().IsNull() && !r.self().IsMap()) return r.not_a_map();
  AICOST_TRY_STATUS(r.read("egress", UnitKind::kBytes, n.egress));
  AICOST_TRY_STATUS(r.read("cross_region", UnitKind::kBytes, n.cross_region));
  if (const auto* p = network_price(cat, provider, "internet-egress")) n.egress_price = p->price;
  if (const auto* p = network_price(cat, provider, "inter-region")) n.cross_region_price = p->price;
  AICOST_TRY_STATUS(r.read("egress_price", UnitKind::kTransferPrice, n.egress_price));
  AICOST_TRY_STATUS(r.read("cross_region_price", UnitKind::kTransferPrice, n.cross_region_price));
  return r.finish();
}

core::Status read_operations(MapReader& r, costing::OperationsInputs& o) {
  if (!r.self().IsNull() && !r.self().IsMap()) return r.not_a_map();
  TRY_ASSIGN(o.engineers, r.quantity("engineers", UnitKind::kCount));
  AICOST_TRY_STATUS(r.read("engineer_cost", UnitKind::kMoneyRate, o.engineer_rate));
  if (o.engineers > 0 && o.engineer_rate.value() == 0) {
    return r.source().error(r.node("engineers").Mark(),
                            "operations.engineers needs operations.engineer_cost, e.g. 20000USD/month");
  }
  AICOST_TRY_STATUS(r.read("on_call", UnitKind::kMoneyRate, o.on_call));
  return r.finish();
}

core::Status read_services(MapReader& top, costing::ServicesInputs& s) {
  AICOST_TRY_STATUS(top.read("database", UnitKind::kMoneyRate, s.database));
  AICOST_TRY_STATUS(top.read("security", UnitKind::kMoneyRate, s.security));
  MapReader m(top.node("monitoring"), "monitoring", top.source());
  if (!m.self().IsNull() && !m.self().IsMap()) return m.not_a_map();
  AICOST_TRY_STATUS(m.read("fixed", UnitKind::kMoneyRate, s.monitoring));
  AICOST_TRY_STATUS(m.read("per_gpu", UnitKind::kMoneyRate, s.monitoring_per_gpu));
  return m.finish();
}


}  // namespace aicost::config
