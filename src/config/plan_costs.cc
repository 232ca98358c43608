// Readers of the plan's money sections: storage, network, operations, services, reliability.
#include <algorithm>

#include "aicost/core/suggest.h"
#include "aicost/core/text.h"
#include "plan_sections.h"

namespace aicost::config {

using core::UnitKind;

namespace {

// A storage price: an explicit `<prefix>_price`, a catalog id in `<prefix>_tier`, or the
// provider's first object-storage price. `tier_out` (may be null) gets the catalog tier used.
core::Status storage_price(MapReader& r, const catalog::Catalog& cat, const std::string& provider,
                           const std::string& prefix, core::UsdPerByteSecond& out,
                           std::string& note, const catalog::StoragePrice** tier_out = nullptr) {
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
    if (!t)
      return r.source().error(r.node(prefix + "_tier").Mark(), t.error().message, t.error().code);
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
  if (tier_out) *tier_out = chosen;
  if (chosen) {
    out = chosen->price;
    if (note.find(chosen->id) == std::string::npos) {
      note += (note.empty() ? "" : ", ") + chosen->id +
              core::sprintf(" %.4g USD/GB-month",
                            chosen->price.value() * core::kGB * core::kSecondsPerMonth);
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

// The terms of a catalog tier; an unknown minimum duration is charged as none, with a warning.
costing::TierTerms terms_of(const catalog::StoragePrice* t, std::vector<std::string>& warnings) {
  costing::TierTerms out;
  if (!t) return out;
  out.id = t->id;
  out.retrieval_price = t->retrieval_price;
  out.restore = t->restore_time;
  if (t->min_storage_duration) {
    out.min_duration = *t->min_storage_duration;
  } else {
    warnings.push_back("the minimum storage duration of " + t->id +
                       " is not in the catalog: objects deleted early are not charged extra");
  }
  return out;
}

// A codec on a content, measured in data/compression.yaml; absent or "none": not compressed.
core::Status read_compression(MapReader& r, const catalog::Catalog& cat, const std::string& key,
                              const std::string& content, costing::Compression& out) {
  std::optional<std::string> codec;
  TRY_ASSIGN(codec, r.string(key));
  if (!codec || *codec == "none") return {};
  auto f = cat.compression(*codec, content);
  if (!f) return r.source().error(r.node(key).Mark(), f.error().message, f.error().code);
  out.name = (*f)->codec;
  out.ratio = (*f)->ratio;
  out.compress_per_core = (*f)->compress_per_core;
  out.decompress_per_core = (*f)->decompress_per_core;
  return {};
}

// A map of names to values of one kind ("{debug: 14GB, info: 5GB}"), each with its place.
template <class Fn>
core::Status read_named(MapReader& r, const std::string& key, Fn each) {
  YAML::Node n = r.node(key);
  if (!n || n.IsNull()) return {};
  if (!n.IsMap())
    return r.source().error(n.Mark(),
                            "storage." + key + " is a map, e.g. {debug: 14GB, info: 5GB}");
  MapReader m(n, "storage." + key, r.source());
  for (const auto& kv : n) {
    const std::string name = kv.first.Scalar();
    AICOST_TRY_STATUS(each(m, name));
  }
  return m.finish();
}

core::Status read_lifecycle(MapReader& r, const catalog::Catalog& cat, const std::string& stage,
                            std::optional<costing::LifecycleStage>& out,
                            std::vector<std::string>& warnings) {
  std::optional<std::string> tier;
  TRY_ASSIGN(tier, r.string("checkpoint_" + stage + "_tier"));
  core::Seconds after(-1);
  AICOST_TRY_STATUS(r.read("checkpoint_" + stage + "_after", UnitKind::kDuration, after));
  if (!tier && after.value() < 0) return {};
  if (!tier || after.value() < 0) {
    const std::string given = tier ? "tier" : "after";
    return r.source().error(
        r.node("checkpoint_" + stage + "_" + given).Mark(),
        "storage.checkpoint_" + stage + "_tier and checkpoint_" + stage +
            "_after go together: the tier older checkpoints move to, and their age");
  }
  auto t = cat.storage(*tier);
  if (!t) {
    return r.source().error(r.node("checkpoint_" + stage + "_tier").Mark(), t.error().message,
                            t.error().code);
  }
  out = costing::LifecycleStage{after, (*t)->price, terms_of(*t, warnings)};
  return {};
}

}  // namespace

namespace {
core::Status read_data_feed(MapReader& r, const catalog::StoragePrice* tier,
                            workload::TrainingJob& job, costing::StorageInputs& s,
                            std::vector<std::string>& warnings);
core::Status read_logs(MapReader& r, const catalog::Catalog& cat, costing::StorageInputs& s);
}  // namespace

core::Status read_storage(MapReader& r, const catalog::Catalog& cat, const std::string& provider,
                          workload::TrainingJob& job, costing::StorageInputs& s,
                          std::vector<std::string>& warnings) {
  if (!r.self().IsNull() && !r.self().IsMap()) return r.not_a_map();
  // Tokenised data: uint16 ids when the vocabulary fits, else int32 (Megatron .bin/.idx).
  core::Bytes bytes_per_token(job.model.vocab() <= 65535 ? 2 : 4);
  AICOST_TRY_STATUS(r.read("bytes_per_token", UnitKind::kBytes, bytes_per_token, true));
  job.data.bytes_per_token = bytes_per_token.value();
  s.dataset = core::Bytes(job.tokens * bytes_per_token.value());
  s.checkpoint_write_bandwidth = core::gb_per_s(100);
  s.logs_per_day = core::gb(5);
  s.log_retention = core::days(30);
  AICOST_TRY_STATUS(r.read("dataset_size", UnitKind::kBytes, s.dataset));
  AICOST_TRY_STATUS(r.read("checkpoint_size", UnitKind::kBytes, s.checkpoint_size));
  AICOST_TRY_STATUS(
      r.read("checkpoint_interval", UnitKind::kDuration, s.checkpoint_interval, true));
  TRY_ASSIGN(s.checkpoints_retained, r.integer("checkpoints_retained"));
  AICOST_TRY_STATUS(r.read("checkpoint_write_bandwidth", UnitKind::kBandwidth,
                           s.checkpoint_write_bandwidth, true));
  TRY_ASSIGN(s.async_checkpoint, r.boolean("async_checkpoint"));
  AICOST_TRY_STATUS(r.read("logs_per_day", UnitKind::kBytes, s.logs_per_day));
  AICOST_TRY_STATUS(r.read("log_retention", UnitKind::kDuration, s.log_retention));
  const catalog::StoragePrice* dataset_tier = nullptr;
  const catalog::StoragePrice* checkpoint_tier = nullptr;
  AICOST_TRY_STATUS(
      storage_price(r, cat, provider, "dataset", s.dataset_price, s.tier_note, &dataset_tier));
  AICOST_TRY_STATUS(storage_price(r, cat, provider, "checkpoint", s.checkpoint_price, s.tier_note,
                                  &checkpoint_tier));
  AICOST_TRY_STATUS(storage_price(r, cat, provider, "log", s.log_price, s.tier_note));
  if (s.tier_note.empty() && s.dataset_price.value() == 0) {
    warnings.push_back("no storage price in the catalog or plan: storage is costed at 0");
  }
  AICOST_TRY_STATUS(read_data_feed(r, dataset_tier, job, s, warnings));
  s.checkpoint_terms = terms_of(checkpoint_tier, warnings);
  AICOST_TRY_STATUS(read_lifecycle(r, cat, "warm", s.checkpoint_warm, warnings));
  AICOST_TRY_STATUS(read_lifecycle(r, cat, "cold", s.checkpoint_cold, warnings));
  if (s.checkpoint_warm && s.checkpoint_cold &&
      s.checkpoint_cold->after <= s.checkpoint_warm->after) {
    return r.source().error(
        r.node("checkpoint_cold_after").Mark(),
        "storage.checkpoint_cold_after must be later than checkpoint_warm_after");
  }
  TRY_ASSIGN(s.incremental_checkpoint, r.boolean("incremental_checkpoint"));
  AICOST_TRY_STATUS(
      read_compression(r, cat, "checkpoint_compression", "checkpoint", s.checkpoint_compression));
  s.compression_cores_per_node = cat.compression_defaults().checkpoint_cores_per_node;
  TRY_ASSIGN(s.compression_cores_per_node, r.integer("compression_cores_per_node"));
  if (s.compression_cores_per_node < 1 && !s.checkpoint_compression.name.empty()) {
    return r.source().error(r.self().Mark(),
                            "storage.compression_cores_per_node must be at least 1");
  }
  AICOST_TRY_STATUS(read_logs(r, cat, s));
  return r.finish();
}

namespace {

core::Status read_data_feed(MapReader& r, const catalog::StoragePrice* tier,
                            workload::TrainingJob& job, costing::StorageInputs& s,
                            std::vector<std::string>& warnings) {
  s.dataset_terms = terms_of(tier, warnings);
  if (s.dataset_terms.restore.value() > 0) {
    return r.source().error(
        r.node("dataset_tier").Mark(),
        "storage.dataset_tier " + tier->id + " is an archive tier (a restore of " +
            core::sprintf("%.0f h", core::in_hours(s.dataset_terms.restore)) +
            " before any read): a training job cannot read from it; restore the "
            "dataset to a readable tier and name that one");
  }
  // The tier's read rate, unless the plan gives the rate it measured.
  if (tier) {
    job.data.per_node = tier->read_per_node;
    job.data.shared = tier->read_per_tib * (s.dataset.value() / core::kTiB);
  }
  core::BytesPerSecond measured(0);
  AICOST_TRY_STATUS(r.read("dataset_read_bandwidth", UnitKind::kBandwidth, measured, true));
  if (measured.value() > 0) {
    job.data.per_node = core::BytesPerSecond(0);
    job.data.shared = measured;
  }
  double duplicates = -1;
  TRY_ASSIGN(duplicates, r.quantity("dataset_duplicates", UnitKind::kPercent));
  if (duplicates >= 1) {
    return r.source().error(
        r.node("dataset_duplicates").Mark(),
        "storage.dataset_duplicates is the share of the dataset that duplicates "
        "other data in it: below 100%");
  }
  if (duplicates >= 0) s.dataset_duplicates = duplicates;
  return {};
}

// Logs: a volume per day, or by level (storage.log_levels) with a share of each level kept
// (storage.log_sampling); stored compressed when storage.log_compression names a codec.
core::Status read_logs(MapReader& r, const catalog::Catalog& cat, costing::StorageInputs& s) {
  AICOST_TRY_STATUS(
      read_named(r, "log_levels", [&](MapReader& m, const std::string& level) -> core::Status {
        core::Bytes b(0);
        AICOST_TRY_STATUS(m.read(level, UnitKind::kBytes, b));
        s.log_levels[level] = b;
        return core::Status{};
      }));
  AICOST_TRY_STATUS(
      read_named(r, "log_sampling", [&](MapReader& m, const std::string& level) -> core::Status {
        double keep = 1;
        TRY_ASSIGN(keep, m.quantity(level, UnitKind::kPercent));
        if (keep > 1) return m.source().error(m.node(level).Mark(), "a kept share is at most 100%");
        s.log_sampling[level] = keep;
        return core::Status{};
      }));
  if (!s.log_levels.empty()) {
    if (r.has("logs_per_day")) {
      return r.source().error(
          r.node("log_levels").Mark(),
          "give storage.logs_per_day or storage.log_levels (the volume by level), not both");
    }
    double per_day = 0;
    for (const auto& [level, b] : s.log_levels) {
      const auto keep = s.log_sampling.find(level);
      per_day += b.value() * (keep == s.log_sampling.end() ? 1.0 : keep->second);
    }
    s.logs_per_day = core::Bytes(per_day);
  }
  for (const auto& [level, keep] : s.log_sampling) {
    if (!s.log_levels.count(level)) {
      return r.source().error(
          r.node("log_sampling").Mark(),
          "storage.log_sampling samples level '" + level +
              "', which storage.log_levels does not list: give the volume by level");
    }
  }
  return read_compression(r, cat, "log_compression", "training-log", s.log_compression);
}

}  // namespace

core::Status read_network(MapReader& r, const catalog::Catalog& cat, const std::string& provider,
                          costing::NetworkInputs& n) {
  if (!r.self().IsNull() && !r.self().IsMap()) return r.not_a_map();
  AICOST_TRY_STATUS(r.read("egress", UnitKind::kBytes, n.egress));
  TRY_ASSIGN(n.egress_content, r.string("egress_content"));
  if (!n.egress_content.empty()) {
    std::vector<std::string> contents;
    for (const auto& f : cat.compression_figures()) {
      if (std::find(contents.begin(), contents.end(), f.content) == contents.end()) {
        contents.push_back(f.content);
      }
    }
    if (std::find(contents.begin(), contents.end(), n.egress_content) == contents.end()) {
      std::string list;
      for (const auto& c : contents) list += (list.empty() ? "" : ", ") + c;
      return r.source().error(
          r.node("egress_content").Mark(),
          "network.egress_content '" + n.egress_content + "' is not a measured content." +
              core::did_you_mean(n.egress_content, contents) + " Known: " + list);
    }
    AICOST_TRY_STATUS(
        read_compression(r, cat, "egress_compression", n.egress_content, n.egress_compression));
  } else if (r.has("egress_compression")) {
    return r.source().error(r.node("egress_compression").Mark(),
                            "network.egress_compression needs network.egress_content (what the "
                            "egress is: training-log, metrics-jsonl, checkpoint, bf16-weights)");
  }
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
    return r.source().error(
        r.node("engineers").Mark(),
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
