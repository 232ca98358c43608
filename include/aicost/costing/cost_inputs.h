// What a plan says about money beyond the GPUs' step time: prices, storage, network, people,
// fixed services, reliability and contingency. Defaults are documented in docs/PLAN_FORMAT.md
// and printed as the "driver" of each cost line, so a user sees every assumption.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "aicost/catalog/instance.h"
#include "aicost/core/quantity.h"
#include "aicost/costing/owned.h"
#include "aicost/reliability/failure_model.h"

namespace aicost::costing {

struct ComputePricing {
  core::UsdPerSecond per_gpu;  // price of one GPU for one second under the chosen mode
  std::string basis;  // "2.00 USD/GPU-h (plan)", "aws/p5.48xlarge on-demand 55.04 USD/h / 8 GPUs"
  catalog::PricingMode mode = catalog::PricingMode::kOnDemand;
  std::string provider;  // of the instance priced ("aws"); empty for a plain gpu_hour price
  std::string instance;  // catalog id of the instance priced; empty for a plain gpu_hour price
  // A reservation (an instance's reserved-1y or reserved-3y price) is paid for whole terms
  // whether or not the run uses them: `term` is its length (0 for on-demand, spot and gpu_hour),
  // `term_reuse` the share of the term outside this run that other work uses and pays for
  // (pricing.reservation_reuse, default 0: this run pays the whole term).
  core::Seconds term{0};
  double term_reuse = 0;
  // Owned GPUs (pricing.mode owned): per_gpu is the effective price of a busy GPU-second on the
  // team's own cluster; `mode` is then meaningless (mode_name says "owned").
  std::optional<OwnedPricing> owned;
};

// "owned", or the catalog mode's name ("on-demand", "reserved-1y", ...).
const char* mode_name(const ComputePricing& pricing);

// A plain per-GPU-hour price from a plan (pricing.gpu_hour): no instance, no term.
ComputePricing gpu_hour_pricing(core::UsdPerSecond per_gpu);
// The price of one GPU of `instance` under `mode` (0 when unpublished), with its basis text and,
// for reserved modes, the term (1 or 3 years of 8760 h).
ComputePricing instance_pricing(const catalog::Instance& instance, catalog::PricingMode mode);
// The price of a busy GPU on an owned cluster (owned.h), with its basis text. `rented` (may be
// null) is the instance the plan names beside it: its provider prices storage and network, and
// the pricing levers may still propose its other modes.
ComputePricing owned_pricing(OwnedPricing owned, const catalog::Instance* rented);

// What a storage tier charges and takes beyond its price per byte-month (catalog::StoragePrice);
// a plan's own `*_price` has none of it.
struct TierTerms {
  std::string id;                    // catalog id; empty for a plan's own price
  core::UsdPerByte retrieval_price;  // per byte read back
  core::Seconds min_duration{0};     // each object billed at least this long
  core::Seconds restore{0};          // before an archived object can be read
};

// A lifecycle rule: checkpoints older than `after` move to another tier (docs/PLAN_FORMAT.md,
// storage.checkpoint_warm_* and checkpoint_cold_*).
struct LifecycleStage {
  core::Seconds after{0};
  core::UsdPerByteSecond price;
  TierTerms terms;
};

// A compression codec applied to a kind of data (data/compression.yaml, measured by
// tools/compress_ratio): stored bytes / bytes, and one core's speeds.
struct Compression {
  std::string name;  // "zstd-3"; empty: not compressed
  double ratio = 1;
  core::BytesPerSecond compress_per_core;
  core::BytesPerSecond decompress_per_core;
};

struct StorageInputs {
  core::Bytes dataset;  // tokenised training data kept for the run
  core::UsdPerByteSecond dataset_price;
  TierTerms dataset_terms;  // retrieval: every trained token's bytes are read once
  // Share of `dataset` that duplicates other data in it (storage.dataset_duplicates); nullopt:
  // the plan does not say.
  std::optional<double> dataset_duplicates;
  core::Bytes checkpoint_size;  // one full checkpoint; 0 = derived (14 B/param)
  core::Seconds
      checkpoint_interval;  // 0 = the minimiser of Daly's expected wall time for the job's MTBF
  int checkpoints_retained = 5;  // kept at once (older ones deleted)
  core::UsdPerByteSecond checkpoint_price;
  TierTerms checkpoint_terms;  // of the tier checkpoints are written to
  std::optional<LifecycleStage> checkpoint_warm, checkpoint_cold;  // older checkpoints move
  core::BytesPerSecond checkpoint_write_bandwidth;  // aggregate; sets the blocking save time
  bool async_checkpoint = false;  // saves overlap training (only a snapshot blocks)
  // Incremental saves (storage.incremental_checkpoint) write only what changed since the last
  // one: the trainable share of the state (training.trainable_share, default 1: full training
  // changes every parameter each step); the frozen rest is stored once.
  bool incremental_checkpoint = false;
  double trainable_share = 1;
  Compression checkpoint_compression;  // on the training nodes' cores, before the write
  int compression_cores_per_node = 0;  // cores a node gives to checkpoint compression
  core::Bytes logs_per_day;            // written, after storage.log_sampling
  // Log volume by level as the plan gives it (storage.log_levels) and the share of each level
  // kept (storage.log_sampling); empty when the plan gives only logs_per_day.
  std::map<std::string, core::Bytes> log_levels;
  std::map<std::string, double> log_sampling;
  Compression log_compression;  // logs are stored compressed
  core::Seconds log_retention;
  core::UsdPerByteSecond log_price;
  std::string tier_note;  // which catalog prices were used
};

struct NetworkInputs {
  core::Bytes egress;  // to the internet over the run
  // What the egress is (network.egress_content: a content of data/compression.yaml, e.g.
  // training-log, checkpoint); empty: the plan does not say.
  std::string egress_content;
  Compression egress_compression;  // applied before it leaves
  core::UsdPerByte egress_price;
  core::Bytes cross_region;  // between regions over the run
  core::UsdPerByte cross_region_price;
};

struct OperationsInputs {
  double engineers = 0;              // full-time equivalents on the run
  core::UsdPerSecond engineer_rate;  // loaded cost of one FTE
  core::UsdPerSecond on_call;        // rota/pager cost
};

struct ServicesInputs {
  core::UsdPerSecond database;            // experiment tracking, metadata stores
  core::UsdPerSecond monitoring;          // fixed part (dashboards, log platform)
  core::UsdPerSecond monitoring_per_gpu;  // per monitored GPU
  core::UsdPerSecond security;            // fixed part (scanning, audit, key management)
};

// Interrupts, restarts and spares (reliability module). The plan reader fills `failures` from
// data/reliability.yaml; the default here is one cause at Llama 3 405B's rate, 419 unexpected
// interrupts in 54 days on 16,384 H100 (Dubey et al. 2024 §3.3.4) = 1.97e-5 per GPU-hour.
struct ReliabilityInputs {
  reliability::FailureModel failures = [] {
    reliability::FailureModel m;
    m.causes.push_back({"all", 419.0 / (16384.0 * 54 * 24), 1, core::Seconds(2 * 86400.0), {}});
    return m;
  }();
  reliability::RestartModel restart;
  core::BytesPerSecond checkpoint_read_bandwidth;  // 0: as fast as the write bandwidth
  // Spare nodes held (and paid) for the whole run; -1: replacements come from a pool the job
  // does not pay for, and are always available.
  int spare_nodes = -1;
};

struct CostInputs {
  ComputePricing compute;
  StorageInputs storage;
  NetworkInputs network;
  OperationsInputs operations;
  ServicesInputs services;
  ReliabilityInputs reliability;
  double contingency = 0.10;  // share of the subtotal held back for the unforeseen
};

}  // namespace aicost::costing
