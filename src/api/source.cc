#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "aicost/api/api.h"
#include "aicost/config/catalog_loader.h"

namespace aicost::api {

core::Result<PlanSource> plan_file(const std::string& path) {
  auto text = config::read_file(path);
  if (!text) return text.error();
  // Left empty for a bare file name: serving plans name a traffic CSV relative to it as it is
  // written (messages quote it), training plans read "" as ".".
  return PlanSource{std::move(*text), path, std::filesystem::path(path).parent_path().string()};
}

core::Result<catalog::Catalog> load_catalog(const std::vector<std::string>& extra) {
  auto cat = config::load_builtin_catalog();
  if (!cat) return cat.error();
  std::vector<std::string> files;
  if (const char* env = std::getenv("AICOST_CATALOG"); env && *env) {
    std::stringstream ss(env);
    std::string part;
    while (std::getline(ss, part, ':')) {
      if (!part.empty()) files.push_back(part);
    }
  }
  files.insert(files.end(), extra.begin(), extra.end());
  for (const auto& f : files) AICOST_TRY_STATUS(config::add_catalog_file(f, *cat));
  return cat;
}

}  // namespace aicost::api
