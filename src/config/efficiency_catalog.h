// Private to config: the efficiency-profile section of a catalog file (data/efficiency.yaml).
#pragma once

#include "aicost/catalog/catalog.h"
#include "yaml_source.h"

namespace aicost::config {

// One entry of `efficiency:`: a generation's achieved-vs-peak values and model overheads, each
// key with its unit; without `base: <generation>` every key is required (the error names the
// missing ones), with it the others come from that profile.
core::Status read_efficiency(MapReader& r, catalog::Catalog& cat);

}  // namespace aicost::config
