// Private to config: the owned-server sections of a catalog file (data/owned.yaml).
#pragma once

#include "aicost/catalog/catalog.h"
#include "yaml_source.h"

namespace aicost::config {

// source (required), date, version, note of a catalog entry (catalog_loader.cc).
core::Status read_provenance(MapReader& r, catalog::Provenance& p);
// One entry of `servers:`: id, gpu, gpus, price (absent: unpriced, a note says why), kind, weak,
// provenance and a `power:` map (max, training, idle, with their own kind and provenance).
core::Status read_server(MapReader& r, catalog::Catalog& cat);
// `owned_defaults:` - each key a map of value, kind, weak and provenance; `fabric` a list of
// tiers. Keys present replace the catalog's current defaults.
core::Status read_owned_defaults(MapReader& r, catalog::Catalog& cat);

}  // namespace aicost::config
