// Private to config: readers of the plan's sections (plan_sections.cc).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aicost/catalog/catalog.h"
#include "aicost/costing/cost_inputs.h"
#include "aicost/workload/training_job.h"
#include "yaml_source.h"

namespace aicost::config {

struct Plan;
struct SearchRequest;
struct ServingPlan;
// A relative model.hf_config of a plan read from `base_dir`, rewritten for a file in `out_dir`.
void rebase_hf_config(YAML::Node& root, const std::string& base_dir, const std::string& out_dir);
// The `search:` section (constraints, objective, top, max_gpus) into `req` (search_plan.cc).
core::Status read_search_section(const Source& source, const YAML::Node& node, SearchRequest& req);

// Another tool's spelling of a plan key, accepted by the reader (`warn`: with a warning).
struct KeyAlias {
  const char* section;
  const char* alias;
  const char* key;
  bool warn;
};
const std::vector<KeyAlias>& key_aliases();
// parse_plan on an already parsed document; marks in `root` refer to `source`.
core::Result<Plan> parse_plan_root(const YAML::Node& root, const Source& source,
                                   const std::string& base_dir, const catalog::Catalog& cat);

// serving.traffic_profile (a CSV of requests per second a minute, relative to `base_dir`, or a
// synthetic shape) and serving.autoscaling, into plan.series, plan.policy and plan.policies
// (traffic_profile.cc).
core::Status read_traffic_profile(MapReader& serving, const std::string& base_dir,
                                  ServingPlan& plan);

// The model section: a catalog preset, a Hugging Face config.json (`hf_config`, relative to
// `base_dir`) or the architecture inline; inline fields override the preset's or the file's.
core::Result<workload::Model> read_model(MapReader& r, const catalog::Catalog& cat,
                                         const std::string& base_dir,
                                         std::vector<std::string>& warnings);
core::Status read_training(MapReader& r, workload::TrainingJob& job);
core::Status read_cluster(MapReader& r, const catalog::Catalog& cat, workload::TrainingJob& job);
core::Status read_parallelism(MapReader& r, workload::TrainingJob& job,
                              std::vector<std::string>& warnings,
                              const catalog::SoftwareEra* software = nullptr);
// pricing.mode owned, as read (plan_owned.cc); priced by price_owned once the spares are known.
struct OwnedRequest {
  costing::OwnedPricing pricing;  // inputs without the cluster size (and fabric unless given)
  const catalog::Server* server = nullptr;
  const catalog::Instance* rented = nullptr;  // pricing.instance beside mode owned
  bool fabric_given = false;
};
// The pricing keys of owned mode (a warning names those given with another mode).
const std::vector<std::string>& owned_keys();
core::Status read_owned(MapReader& r, const catalog::Catalog& cat, const workload::TrainingJob& job,
                        OwnedRequest& out, std::vector<std::string>& warnings);
// The owned price of a cluster of `cluster_gpus` (the job's GPUs and its spares), with the
// break-evens against the catalog's cheapest rentals of the GPU and the named instance.
costing::ComputePricing price_owned(OwnedRequest req, int cluster_gpus,
                                    const catalog::Catalog& cat);
// With mode owned, `out` gets only the named instance's provider until price_owned.
core::Status read_pricing(MapReader& r, const catalog::Catalog& cat,
                          const workload::TrainingJob& job, costing::ComputePricing& out,
                          std::optional<OwnedRequest>& owned, std::vector<std::string>& warnings);
using costing::gpu_hour_pricing;
using costing::instance_pricing;
// Also sets job.data: the bytes read per token and the dataset tier's read rate.
core::Status read_storage(MapReader& r, const catalog::Catalog& cat, const std::string& provider,
                          workload::TrainingJob& job, costing::StorageInputs& out,
                          std::vector<std::string>& warnings);
core::Status read_network(MapReader& r, const catalog::Catalog& cat, const std::string& provider,
                          costing::NetworkInputs& out);
core::Status read_operations(MapReader& r, costing::OperationsInputs& out);
// database, monitoring and security are top-level keys.
core::Status read_services(MapReader& top, costing::ServicesInputs& out);
// reliability.cc. A plan on a spot price gets a "spot-preemption" cause: one reclaim per node
// every reliability.spot_preemption_mtbf (default: data/reliability.yaml's spot_preemption).
core::Status read_reliability(MapReader& r, const workload::TrainingJob& job,
                              const costing::ComputePricing& pricing,
                              costing::ReliabilityInputs& out, std::vector<std::string>& warnings);
// The shipped failure model (data/reliability.yaml).
core::Result<reliability::FailureModel> default_failure_model();
// The shipped restart parts (data/reliability.yaml `restart`).
core::Result<reliability::RestartModel> default_restart_model();
// The serving simulation's spot defaults (data/reliability.yaml `serving_spot`).
struct SpotServingDefaults {
  double price_ratio = 0;             // spot price / on-demand price
  double interruptions_per_hour = 0;  // reclaims per spot replica-hour
};
core::Result<SpotServingDefaults> default_serving_spot();

}  // namespace aicost::config
