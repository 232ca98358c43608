// `aicost catalog gpus|instances|models|servers`: the shipped and user catalog entries as tables,
// each row with the source and date of its figures. Pure functions; thread-safe; never fail.
//
// Columns are snake_case names with their unit, so they double as JSON keys and CSV headers.
// Numeric cells are plain decimals (no grouping) and therefore JSON numbers; a figure the catalog
// does not have (no fp8 math, an unpublished price, a model spec that does not validate) is an
// empty cell, null in JSON.
#pragma once

#include <string>

#include "aicost/catalog/catalog.h"
#include "aicost/report/format.h"
#include "aicost/report/table.h"

namespace aicost::report {

// id, name, vendor, generation, memory_gib, hbm_tb_s, bf16_tflops, fp8_tflops (dense peaks),
// scale_up_gb_s (NVLink/xGMI per GPU per direction), scale_out_gb_s (NIC per GPU per direction),
// gpus_per_node, tdp_w, source, date.
Table gpu_table(const catalog::Catalog& catalog);
// id, provider, gpu, gpus, region, on_demand_usd_h, spot_usd_h, reserved_1y_usd_h,
// reserved_3y_usd_h (per instance-hour), on_demand_usd_gpu_h, source, date.
Table instance_table(const catalog::Catalog& catalog);
// id, name, layers, hidden, heads, kv_heads, vocab, experts, top_k, params_b and active_params_b
// (billions, from workload::Model), source, date.
Table model_table(const catalog::Catalog& catalog);
// Owned servers (data/owned.yaml): id, gpu, gpus, price_usd (per server; empty where no price was
// found, the source column then says why), price_usd_per_gpu, kind, weak, max_kw, training_kw,
// idle_kw (empty: not known), source, date.
Table server_table(const catalog::Catalog& catalog);

std::string render_gpus(const catalog::Catalog& catalog, Format f);
std::string render_instances(const catalog::Catalog& catalog, Format f);
std::string render_models(const catalog::Catalog& catalog, Format f);
std::string render_servers(const catalog::Catalog& catalog, Format f);

}  // namespace aicost::report
