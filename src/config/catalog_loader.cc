#include "aicost/config/catalog_loader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "efficiency_catalog.h"
#include "owned_catalog.h"
#include "yaml_source.h"

namespace aicost::config {

// Defined in the generated embedded_data.cc.
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_files();

using core::ErrorCode;
using core::UnitKind;

core::Status read_provenance(MapReader& r, catalog::Provenance& p) {
  TRY_ASSIGN(p.source, r.string("source"));
  TRY_ASSIGN(p.date, r.string("date"));
  TRY_ASSIGN(p.version, r.string("version"));
  TRY_ASSIGN(p.note, r.string("note"));
  // How the original source spells the entry (kept for traceability, not used).
  r.accept("gpu_type");
  r.accept("listed_as");
  if (p.source.empty()) {
    return r.source().error(r.self().Mark(), "entry in '" + r.path() + "' has no 'source'");
  }
  return {};
}

namespace {

core::Result<std::vector<std::string>> string_list(MapReader& r, const std::string& key) {
  std::vector<std::string> out;
  auto n = r.node(key);
  if (!n || n.IsNull()) return out;
  if (!n.IsSequence()) return r.source().error(n.Mark(), "'" + key + "' must be a list");
  for (const auto& e : n) out.push_back(e.Scalar());
  return out;
}

core::Status read_gpu(MapReader& r, catalog::Catalog& cat) {
  catalog::GpuSpec g;
  TRY_ASSIGN(g.id, r.string("id"));
  TRY_ASSIGN(g.name, r.string("name"));
  auto aliases = string_list(r, "aliases");
  if (!aliases) return aliases.error();
  g.aliases = *aliases;
  TRY_ASSIGN(g.vendor, r.string("vendor"));
  TRY_ASSIGN(g.generation, r.string("generation"));
  AICOST_TRY_STATUS(r.read("memory", UnitKind::kBytes, g.memory));
  AICOST_TRY_STATUS(r.read("memory_bandwidth", UnitKind::kBandwidth, g.memory_bandwidth));
  AICOST_TRY_STATUS(r.read("scale_up_bandwidth", UnitKind::kBandwidth, g.scale_up_bandwidth));
  AICOST_TRY_STATUS(r.read("scale_out_bandwidth", UnitKind::kBandwidth, g.scale_out_bandwidth));
  AICOST_TRY_STATUS(r.read("tdp", UnitKind::kPower, g.tdp));
  TRY_ASSIGN(g.scale_up_domain, r.integer("scale_up_domain"));
  TRY_ASSIGN(g.gpus_per_node, r.integer("gpus_per_node"));
  if (auto peaks = r.node("peak_dense")) {
    MapReader pr(peaks, r.path() + ".peak_dense", r.source());
    for (int i = 0; i < catalog::kPrecisionCount; ++i) {
      const auto p = static_cast<catalog::Precision>(i);
      AICOST_TRY_STATUS(pr.read(catalog::to_string(p), UnitKind::kFlopsRate, g.peak_dense[i]));
    }
    AICOST_TRY_STATUS(pr.finish());
  }
  AICOST_TRY_STATUS(read_provenance(r, g.provenance));
  if (g.id.empty() || g.memory.value() <= 0 || g.memory_bandwidth.value() <= 0 ||
      (!g.peak(catalog::Precision::kBf16) && !g.peak(catalog::Precision::kFp16))) {
    return r.source().error(r.self().Mark(),
                            "GPU entry needs id, memory, memory_bandwidth and a bf16 or fp16 peak");
  }
  cat.add(std::move(g));
  return {};
}

core::Status read_software(MapReader& r, catalog::Catalog& cat) {
  catalog::SoftwareEra e;
  TRY_ASSIGN(e.id, r.string("id"));
  TRY_ASSIGN(e.description, r.string("description"));
  std::optional<std::string> attention;
  TRY_ASSIGN(attention, r.string("attention"));
  if (attention && *attention != "flash" && *attention != "unfused") {
    return r.source().error(r.node("attention").Mark(), "attention must be flash or unfused");
  }
  e.flash_attention = attention.value_or("flash") == "flash";
  const std::pair<const char*, bool*> flags[] = {
      {"sequence_parallel", &e.sequence_parallel},
      {"distributed_optimizer", &e.distributed_optimizer},
      {"overlap_grad_reduce", &e.overlap_grad_reduce},
      {"overlap_param_gather", &e.overlap_param_gather},
      {"tp_comm_overlap", &e.tp_comm_overlap}};
  for (const auto& [key, field] : flags) {
    if (!r.has(key)) {
      return r.source().error(r.self().Mark(), "software era '" + e.id + "' lacks " + key +
                                                   ": every era states every default");
    }
    TRY_ASSIGN(*field, r.boolean(key));
  }
  AICOST_TRY_STATUS(read_provenance(r, e.provenance));
  if (e.id.empty()) return r.source().error(r.self().Mark(), "software entry needs an id");
  cat.add(std::move(e));
  return {};
}

core::Status read_instance(MapReader& r, catalog::Catalog& cat) {
  catalog::Instance in;
  TRY_ASSIGN(in.id, r.string("id"));
  TRY_ASSIGN(in.name, r.string("name"));
  TRY_ASSIGN(in.provider, r.string("provider"));
  TRY_ASSIGN(in.gpu, r.string("gpu"));
  TRY_ASSIGN(in.gpus, r.integer("gpus"));
  TRY_ASSIGN(in.region, r.string("region"));
  if (auto prices = r.node("prices")) {
    MapReader pr(prices, r.path() + ".prices", r.source());
    for (int i = 0; i < catalog::kPricingModeCount; ++i) {
      AICOST_TRY_STATUS(pr.read(catalog::to_string(static_cast<catalog::PricingMode>(i)),
                                UnitKind::kMoneyRate, in.prices[i]));
    }
    AICOST_TRY_STATUS(pr.finish());
  }
  AICOST_TRY_STATUS(read_provenance(r, in.provenance));
  if (in.id.empty() || in.gpus <= 0) {
    return r.source().error(r.self().Mark(), "instance entry needs id and gpus >= 1");
  }
  cat.add(std::move(in));
  return {};
}

core::Status read_storage(MapReader& r, catalog::Catalog& cat) {
  catalog::StoragePrice s;
  TRY_ASSIGN(s.id, r.string("id"));
  TRY_ASSIGN(s.provider, r.string("provider"));
  TRY_ASSIGN(s.name, r.string("name"));
  TRY_ASSIGN(s.tier, r.string("tier"));
  TRY_ASSIGN(s.region, r.string("region"));
  AICOST_TRY_STATUS(r.read("price", UnitKind::kStoragePrice, s.price));
  AICOST_TRY_STATUS(r.read("retrieval_price", UnitKind::kTransferPrice, s.retrieval_price));
  core::Seconds min_duration(-1);
  AICOST_TRY_STATUS(r.read("min_storage_duration", UnitKind::kDuration, min_duration));
  // Hot tiers bill by the second; a colder tier without a figure has an unknown minimum.
  if (min_duration.value() >= 0) {
    s.min_storage_duration = min_duration;
  } else if (s.tier != "object-infrequent" && s.tier != "archive") {
    s.min_storage_duration = core::Seconds(0);
  }
  AICOST_TRY_STATUS(r.read("restore_time", UnitKind::kDuration, s.restore_time));
  TRY_ASSIGN(s.terms_source, r.string("terms_source"));
  AICOST_TRY_STATUS(r.read("read_per_node", UnitKind::kBandwidth, s.read_per_node, true));
  AICOST_TRY_STATUS(r.read("read_per_tib", UnitKind::kBandwidth, s.read_per_tib, true));
  TRY_ASSIGN(s.read_source, r.string("read_source"));
  AICOST_TRY_STATUS(read_provenance(r, s.provenance));
  const bool has_terms =
      s.retrieval_price.value() > 0 || min_duration.value() > 0 || s.restore_time.value() > 0;
  if (has_terms && s.terms_source.empty()) {
    return r.source().error(r.self().Mark(), "storage entry '" + s.id +
                                                 "' gives retrieval or lifecycle terms without "
                                                 "'terms_source'");
  }
  if (s.read_known() && s.read_source.empty()) {
    return r.source().error(r.self().Mark(), "storage entry '" + s.id +
                                                 "' gives a read throughput without 'read_source'");
  }
  cat.add(std::move(s));
  return {};
}

core::Status read_network(MapReader& r, catalog::Catalog& cat) {
  catalog::NetworkPrice n;
  TRY_ASSIGN(n.id, r.string("id"));
  TRY_ASSIGN(n.provider, r.string("provider"));
  TRY_ASSIGN(n.name, r.string("name"));
  TRY_ASSIGN(n.kind, r.string("kind"));
  TRY_ASSIGN(n.region, r.string("region"));
  AICOST_TRY_STATUS(r.read("price", UnitKind::kTransferPrice, n.price));
  AICOST_TRY_STATUS(read_provenance(r, n.provenance));
  cat.add(std::move(n));
  return {};
}

core::Status read_compression(MapReader& r, catalog::Catalog& cat) {
  catalog::CompressionFigure f;
  TRY_ASSIGN(f.id, r.string("id"));
  TRY_ASSIGN(f.codec, r.string("codec"));
  TRY_ASSIGN(f.content, r.string("content"));
  TRY_ASSIGN(f.ratio, r.ratio("ratio", "0.88"));
  AICOST_TRY_STATUS(r.read("compress_per_core", UnitKind::kBandwidth, f.compress_per_core, true));
  AICOST_TRY_STATUS(
      r.read("decompress_per_core", UnitKind::kBandwidth, f.decompress_per_core, true));
  TRY_ASSIGN(f.command, r.string("command"));
  AICOST_TRY_STATUS(read_provenance(r, f.provenance));
  if (f.codec.empty() || f.content.empty() || f.id != f.codec + "/" + f.content || f.ratio <= 0 ||
      f.compress_per_core.value() <= 0 || f.decompress_per_core.value() <= 0 || f.command.empty()) {
    return r.source().error(
        r.self().Mark(),
        "compression entry needs id (codec/content), codec, content, a ratio > 0, "
        "compress_per_core, decompress_per_core and the command that measured it");
  }
  cat.add(std::move(f));
  return {};
}

}  // namespace

// Shared with plan.cc: the architecture keys of a model preset or an inline model.
core::Status read_model_fields(MapReader& r, catalog::ModelSpec& m);

namespace {

core::Status read_model(MapReader& r, catalog::Catalog& cat) {
  catalog::ModelSpec m;
  TRY_ASSIGN(m.id, r.string("id"));
  TRY_ASSIGN(m.name, r.string("name"));
  auto aliases = string_list(r, "aliases");
  if (!aliases) return aliases.error();
  m.aliases = *aliases;
  AICOST_TRY_STATUS(read_model_fields(r, m));
  TRY_ASSIGN(m.published_params, r.quantity("params", UnitKind::kCount));
  TRY_ASSIGN(m.published_active_params, r.quantity("active_params", UnitKind::kCount));
  AICOST_TRY_STATUS(read_provenance(r, m.provenance));
  cat.add(std::move(m));
  return {};
}

template <class Fn>
core::Status read_section(const YAML::Node& root, const char* key, const Source& src,
                          catalog::Catalog& cat, Fn fn) {
  const YAML::Node list = root[key];
  if (!list) return {};
  if (!list.IsSequence())
    return src.error(list.Mark(), std::string("'") + key + "' must be a list");
  int i = 0;
  for (const auto& entry : list) {
    MapReader r(entry, std::string(key) + "[" + std::to_string(i++) + "]", src);
    if (!entry.IsMap()) return r.not_a_map();
    AICOST_TRY_STATUS(fn(r, cat));
    AICOST_TRY_STATUS(r.finish());
  }
  return {};
}

// One `intervals.training` or `intervals.serving` section of data/intervals.yaml.
core::Status read_error_bands(const YAML::Node& node, const std::string& path, const Source& src,
                              catalog::ErrorBands& out) {
  MapReader r(node, path, src);
  if (!node.IsMap()) return r.not_a_map();
  catalog::ErrorBands bands;
  TRY_ASSIGN(bands.source, r.string("source"));
  const YAML::Node list = r.node("bands");
  if (!list || !list.IsSequence())
    return src.error(node.Mark(), "'" + path + "' needs a list 'bands'");
  int i = 0;
  for (const auto& entry : list) {
    MapReader e(entry, path + ".bands[" + std::to_string(i++) + "]", src);
    if (!entry.IsMap()) return e.not_a_map();
    catalog::ErrorBand b;
    TRY_ASSIGN(b.regime, e.string("regime"));
    TRY_ASSIGN(b.rows, e.integer("rows"));
    TRY_ASSIGN(b.groups, e.integer("groups"));
    // Each figure is a time ratio, a plain number: 0.921 is 7.9 % faster than predicted.
    const std::pair<const char*, double*> ratios[] = {
        {"p10", &b.p10}, {"median", &b.median}, {"p90", &b.p90}, {"min", &b.min}, {"max", &b.max}};
    for (const auto& [key, field] : ratios) {
      auto v = e.ratio(key, "0.921");
      if (!v) return v.error();
      if (!*v) return src.error(entry.Mark(), "band '" + b.regime + "' has no '" + key + "'");
      *field = **v;
    }
    AICOST_TRY_STATUS(e.finish());
    if (b.regime.empty() || b.rows <= 0 || b.groups <= 0 || b.groups > b.rows || b.min <= 0 ||
        !(b.p10 <= b.median && b.median <= b.p90)) {
      return src.error(entry.Mark(),
                       "band needs a regime, 0 < groups <= rows and p10 <= median <= p90");
    }
    bands.bands.push_back(std::move(b));
  }
  AICOST_TRY_STATUS(r.finish());
  out = std::move(bands);
  return {};
}

core::Status read_intervals(const YAML::Node& node, const Source& src, catalog::Catalog& cat) {
  MapReader r(node, "intervals", src);
  if (!node.IsMap()) return r.not_a_map();
  for (const char* k : {"training", "serving", "memory"}) r.accept(k);
  AICOST_TRY_STATUS(r.finish());
  catalog::ErrorBands b;
  if (const YAML::Node t = node["training"]) {
    AICOST_TRY_STATUS(read_error_bands(t, "intervals.training", src, b));
    cat.set_training_bands(std::move(b));
  }
  if (const YAML::Node s = node["serving"]) {
    AICOST_TRY_STATUS(read_error_bands(s, "intervals.serving", src, b));
    cat.set_serving_bands(std::move(b));
  }
  if (const YAML::Node m = node["memory"]) {
    MapReader mr(m, "intervals.memory", src);
    if (!m.IsMap()) return mr.not_a_map();
    catalog::MemoryMargin margin;
    TRY_ASSIGN(margin.source, mr.string("source"));
    TRY_ASSIGN(margin.rows, mr.integer("rows"));
    TRY_ASSIGN(margin.margin, mr.quantity("margin", UnitKind::kPercent));
    AICOST_TRY_STATUS(mr.finish());
    if (margin.margin < 0)
      return src.error(m.Mark(), "'intervals.memory.margin' cannot be negative");
    cat.set_memory_margin(std::move(margin));
  }
  return {};
}

}  // namespace

core::Status add_catalog_text(std::string_view text, const std::string& origin,
                              catalog::Catalog& cat) {
  const std::string owned(text);
  const Source src = Source::from_text(origin, owned);
  auto root = parse_yaml(src, owned);
  if (!root) return root.error();
  MapReader top(*root, "", src);
  if (!top.valid()) return top.not_a_map();
  // failure_model, spot_preemption, restart and serving_spot are read by the plan readers
  // (reliability.cc).
  for (const char* k :
       {"gpus", "efficiency", "instances", "storage", "network", "models", "servers",
        "owned_defaults", "failure_model", "spot_preemption", "restart", "serving_spot", "software",
        "compression", "compression_defaults", "intervals"}) {
    top.accept(k);
  }
  AICOST_TRY_STATUS(top.finish());
  AICOST_TRY_STATUS(read_section(*root, "gpus", src, cat, read_gpu));
  AICOST_TRY_STATUS(read_section(*root, "efficiency", src, cat, read_efficiency));
  AICOST_TRY_STATUS(read_section(*root, "software", src, cat, read_software));
  AICOST_TRY_STATUS(read_section(*root, "instances", src, cat, read_instance));
  AICOST_TRY_STATUS(read_section(*root, "storage", src, cat, read_storage));
  AICOST_TRY_STATUS(read_section(*root, "network", src, cat, read_network));
  AICOST_TRY_STATUS(read_section(*root, "models", src, cat, read_model));
  AICOST_TRY_STATUS(read_section(*root, "servers", src, cat, read_server));
  AICOST_TRY_STATUS(read_section(*root, "compression", src, cat, read_compression));
  if (const YAML::Node d = (*root)["compression_defaults"]) {
    MapReader r(d, "compression_defaults", src);
    if (!d.IsMap()) return r.not_a_map();
    catalog::CompressionDefaults cd;
    TRY_ASSIGN(cd.checkpoint_cores_per_node, r.integer("checkpoint_cores_per_node"));
    AICOST_TRY_STATUS(read_provenance(r, cd.provenance));
    AICOST_TRY_STATUS(r.finish());
    if (cd.checkpoint_cores_per_node < 1) {
      return r.source().error(d.Mark(),
                              "compression_defaults.checkpoint_cores_per_node must be >= 1");
    }
    cat.set_compression_defaults(std::move(cd));
  }
  if (const YAML::Node d = (*root)["owned_defaults"]) {
    MapReader r(d, "owned_defaults", src);
    if (!d.IsMap()) return r.not_a_map();
    AICOST_TRY_STATUS(read_owned_defaults(r, cat));
  }
  if (const YAML::Node i = (*root)["intervals"]) AICOST_TRY_STATUS(read_intervals(i, src, cat));
  return {};
}

core::Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return core::make_error(ErrorCode::kIo,
                            std::string("cannot read file: ") + std::strerror(errno), path);
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

core::Status add_catalog_file(const std::string& path, catalog::Catalog& cat) {
  auto text = read_file(path);
  if (!text) return text.error();
  return add_catalog_text(*text, path, cat);
}

core::Result<catalog::Catalog> load_builtin_catalog() {
  catalog::Catalog cat;
  for (const auto& [name, text] : embedded_files()) {
    AICOST_TRY_STATUS(add_catalog_text(text, "<builtin>/data/" + std::string(name), cat));
  }
  return cat;
}

}  // namespace aicost::config
