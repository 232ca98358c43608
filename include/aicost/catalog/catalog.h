// The in-memory catalog: GPUs, efficiency profiles, instances, storage/network prices, model
// presets, owned servers and the defaults of owned pricing. Filled by config::load_catalog from the
// shipped data/*.yaml and the user's own files; a later entry with the same id replaces the earlier
// one (user overrides). Lookups accept ids and aliases, case-insensitively, with '_' and ' ' read
// as '-'; a miss is a kNotFound Error with a "did you mean". Not thread-safe for writes; concurrent
// reads are fine.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "aicost/catalog/compression.h"
#include "aicost/catalog/error_band.h"
#include "aicost/catalog/gpu.h"
#include "aicost/catalog/instance.h"
#include "aicost/catalog/model_spec.h"
#include "aicost/catalog/server.h"
#include "aicost/catalog/software.h"
#include "aicost/core/result.h"

namespace aicost::catalog {

// Normalised lookup key: lower case, '_' and ' ' become '-'.
std::string normalize_name(std::string_view name);

class Catalog {
 public:
  void add(GpuSpec gpu);
  void add(EfficiencyProfile profile);
  void add(Instance instance);
  void add(StoragePrice price);
  void add(NetworkPrice price);
  void add(ModelSpec model);
  void add(Server server);
  void add(CompressionFigure figure);
  void set_compression_defaults(CompressionDefaults d) { compression_defaults_ = std::move(d); }
  void add(SoftwareEra era);
  // Replaces the owned-pricing defaults as a whole (a later file's section wins).
  void set_owned_defaults(OwnedDefaults defaults) { owned_defaults_ = std::move(defaults); }
  // The model's error bands (data/intervals.yaml); a later file's section replaces the earlier.
  void set_training_bands(ErrorBands bands) { training_bands_ = std::move(bands); }
  void set_serving_bands(ErrorBands bands) { serving_bands_ = std::move(bands); }
  void set_memory_margin(MemoryMargin m) { memory_margin_ = std::move(m); }

  core::Result<const GpuSpec*> gpu(std::string_view name) const;
  core::Result<const EfficiencyProfile*> efficiency(std::string_view generation) const;
  core::Result<const Instance*> instance(std::string_view name) const;
  core::Result<const StoragePrice*> storage(std::string_view name) const;
  core::Result<const NetworkPrice*> network(std::string_view name) const;
  core::Result<const ModelSpec*> model(std::string_view name) const;
  core::Result<const Server*> server(std::string_view name) const;
  core::Result<const SoftwareEra*> software(std::string_view id) const;
  // The server with GPU `gpu` (id or alias of the GPU as the server entry names it) and the
  // lowest price per GPU; else the first unpriced one (its note says why); else nullptr.
  const Server* server_for(std::string_view gpu) const;
  // The figure of `codec` ("zstd-3") on `content` ("checkpoint"); kNotFound with the codecs
  // measured for that content otherwise.
  core::Result<const CompressionFigure*> compression(std::string_view codec,
                                                     std::string_view content) const;

  const std::vector<GpuSpec>& gpus() const { return gpus_; }
  const std::vector<EfficiencyProfile>& efficiencies() const { return efficiencies_; }
  const std::vector<Instance>& instances() const { return instances_; }
  const std::vector<StoragePrice>& storage_prices() const { return storage_; }
  const std::vector<NetworkPrice>& network_prices() const { return network_; }
  const std::vector<ModelSpec>& models() const { return models_; }
  const std::vector<Server>& servers() const { return servers_; }
  const std::vector<SoftwareEra>& software_eras() const { return software_; }
  const OwnedDefaults& owned_defaults() const { return owned_defaults_; }
  const std::vector<CompressionFigure>& compression_figures() const { return compression_; }
  const CompressionDefaults& compression_defaults() const { return compression_defaults_; }
  const ErrorBands& training_bands() const { return training_bands_; }
  const ErrorBands& serving_bands() const { return serving_bands_; }
  const MemoryMargin& memory_margin() const { return memory_margin_; }

 private:
  std::vector<GpuSpec> gpus_;
  std::vector<EfficiencyProfile> efficiencies_;
  std::vector<Instance> instances_;
  std::vector<StoragePrice> storage_;
  std::vector<NetworkPrice> network_;
  std::vector<SoftwareEra> software_;
  std::vector<ModelSpec> models_;
  std::vector<Server> servers_;
  OwnedDefaults owned_defaults_;
  std::vector<CompressionFigure> compression_;
  CompressionDefaults compression_defaults_;
  ErrorBands training_bands_, serving_bands_;
  MemoryMargin memory_margin_;
};

}  // namespace aicost::catalog
