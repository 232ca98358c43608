// Loads catalog data: the files shipped in data/*.yaml (compiled into the binary) and the user's
// own files. A file may hold any of the sections gpus, efficiency, instances, storage, network,
// models, servers, owned_defaults; an entry whose id already exists replaces it (user overrides),
// and each key of a later owned_defaults section replaces the earlier value.
#pragma once

#include <string>
#include <string_view>

#include "aicost/catalog/catalog.h"
#include "aicost/core/result.h"

namespace aicost::config {

// The shipped catalog. Errors only if the shipped data is broken (kParse / kInvalidInput).
core::Result<catalog::Catalog> load_builtin_catalog();

// Adds the entries of one YAML text to `catalog`; `origin` names it in messages.
core::Status add_catalog_text(std::string_view text, const std::string& origin,
                              catalog::Catalog& catalog);

// Adds the entries of the YAML file at `path` (kIo if it cannot be read).
core::Status add_catalog_file(const std::string& path, catalog::Catalog& catalog);

// Reads a whole file (kIo with the path and the OS reason on failure).
core::Result<std::string> read_file(const std::string& path);

}  // namespace aicost::config
