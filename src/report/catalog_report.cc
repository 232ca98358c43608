#include "aicost/report/catalog_report.h"

#include <fmt/format.h>
#include <algorithm>

#include <optional>

#include "aicost/workload/model.h"

namespace aicost::report {

namespace {

std::string num(double x, int decimals) { return fmt::format("{:.{}f}", x, decimals); }

std::string optional_num(std::optional<double> x, int decimals) {
  return x ? num(*x, decimals) : std::string();
}

std::optional<double> tflops(const catalog::GpuSpec& g, catalog::Precision p) {
  const auto v = g.peak(p);
  if (!v) return std::nullopt;
  return v->value() / 1e12;
}

std::optional<double> price(const catalog::Instance& i, catalog::PricingMode m) {
  const auto p = i.price(m);
  if (!p) return std::nullopt;
  return core::per_hour(*p);
}

}  // namespace

Table gpu_table(const catalog::Catalog& catalog) {
  Table t{
      {"id", "name", "vendor", "generation", "memory_gib", "hbm_tb_s", "bf16_tflops", "fp8_tflops",
       "scale_up_gb_s", "scale_out_gb_s", "gpus_per_node", "tdp_w", "source", "date"},
      {},
      {false, false, false, false, true, true, true, true, true, true, true, true, false, false},
      "GPUs"};
  for (const auto& g : catalog.gpus()) {
    t.rows.push_back({g.id, g.name, g.vendor, g.generation, num(core::in_gib(g.memory), 1),
                      num(g.memory_bandwidth.value() / core::kTB, 2),
                      optional_num(tflops(g, catalog::Precision::kBf16), 1),
                      optional_num(tflops(g, catalog::Precision::kFp8), 1),
                      num(g.scale_up_bandwidth.value() / core::kGB, 0),
                      num(g.scale_out_bandwidth.value() / core::kGB, 1),
                      std::to_string(g.gpus_per_node), num(g.tdp.value(), 0), g.provenance.source,
                      g.provenance.date});
  }
  return t;
}

Table instance_table(const catalog::Catalog& catalog) {
  using catalog::PricingMode;
  Table t{{"id", "provider", "gpu", "gpus", "region", "on_demand_usd_h", "spot_usd_h",
           "reserved_1y_usd_h", "reserved_3y_usd_h", "on_demand_usd_gpu_h", "source", "date"},
          {},
          {false, false, false, true, false, true, true, true, true, true, false, false},
          "Instances"};
  for (const auto& i : catalog.instances()) {
    const auto on_demand = price(i, PricingMode::kOnDemand);
    std::optional<double> per_gpu;
    if (on_demand && i.gpus > 0) per_gpu = *on_demand / i.gpus;
    t.rows.push_back({i.id, i.provider, i.gpu, std::to_string(i.gpus), i.region,
                      optional_num(on_demand, 2), optional_num(price(i, PricingMode::kSpot), 2),
                      optional_num(price(i, PricingMode::kReserved1y), 2),
                      optional_num(price(i, PricingMode::kReserved3y), 2), optional_num(per_gpu, 2),
                      i.provenance.source, i.provenance.date});
  }
  return t;
}

Table model_table(const catalog::Catalog& catalog) {
  Table t{{"id", "name", "layers", "hidden", "heads", "kv_heads", "vocab", "experts", "top_k",
           "params_b", "active_params_b", "source", "date"},
          {},
          {false, false, true, true, true, true, true, true, true, true, true, false, false},
          "Models"};
  for (const auto& s : catalog.models()) {
    const auto model = workload::Model::create(s);
    std::optional<double> total, active;
    if (model) {
      total = model->params_total() / 1e9;
      active = model->params_active() / 1e9;
    }
    const int kv = s.num_query_groups > 0 ? s.num_query_groups : s.num_attention_heads;
    t.rows.push_back({s.id, s.name, std::to_string(s.num_layers), std::to_string(s.hidden_size),
                      std::to_string(s.num_attention_heads), std::to_string(kv),
                      std::to_string(s.vocab_size), std::to_string(s.num_moe_experts),
                      std::to_string(s.moe_router_topk), optional_num(total, 3),
                      optional_num(active, 3), s.provenance.source, s.provenance.date});
  }
  return t;
}

Table server_table(const catalog::Catalog& catalog) {
  Table t{{"id", "gpu", "gpus", "price_usd", "price_usd_per_gpu", "kind", "weak", "max_kw",
           "training_kw", "idle_kw", "source", "date"},
          {},
          {false, false, true, true, true, false, false, true, true, true, false, false},
          "Servers (owned)"};
  auto kw = [](core::Watts w) { return w.value() > 0 ? num(w.value() / 1e3, 2) : std::string(); };
  for (const auto& s : catalog.servers()) {
    const auto price = s.priced();
    const auto& src = s.price_sourcing;
    t.rows.push_back({s.id, s.gpu, std::to_string(s.gpus), price ? num(price->value(), 0) : "",
                      price ? num(price->value() / s.gpus, 0) : "", src.kind,
                      src.weak ? "weak" : "", kw(s.max_power), kw(s.training_power),
                      kw(s.idle_power), price ? src.provenance.source : src.provenance.note,
                      src.provenance.date});
  }
  return t;
}

namespace {

// Sources are long citations: a terminal table shows their start; the other formats keep all.
std::string render_catalog(Table t, Format f) {
  constexpr size_t kShown = 48;
  if (f == Format::kTable) {
    const auto col = std::find(t.header.begin(), t.header.end(), "source") - t.header.begin();
    for (auto& row : t.rows) {
      if (static_cast<size_t>(col) < row.size() && display_width(row[col]) > kShown) {
        std::string& cell = row[col];
        size_t cut = kShown - 3;
        while (cut > 0 && (static_cast<unsigned char>(cell[cut]) & 0xC0) == 0x80) --cut;
        cell = cell.substr(0, cut) + "...";
      }
    }
  }
  return render(t, f);
}

}  // namespace

std::string render_gpus(const catalog::Catalog& catalog, Format f) {
  return render_catalog(gpu_table(catalog), f);
}

std::string render_instances(const catalog::Catalog& catalog, Format f) {
  return render_catalog(instance_table(catalog), f);
}

std::string render_models(const catalog::Catalog& catalog, Format f) {
  return render_catalog(model_table(catalog), f);
}

std::string render_servers(const catalog::Catalog& catalog, Format f) {
  return render_catalog(server_table(catalog), f);
}

}  // namespace aicost::report
