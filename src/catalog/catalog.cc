#include "aicost/catalog/catalog.h"

#include <algorithm>
#include <cctype>

#include "aicost/core/suggest.h"

namespace aicost::catalog {

std::string normalize_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == '_' || c == ' ') c = '-';
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

namespace {

template <class T>
const std::vector<std::string>* aliases_of(const T& e) {
  if constexpr (requires { e.aliases; }) {
    return &e.aliases;
  } else {
    return nullptr;
  }
}

template <class T>
std::string key_of(const T& e) {
  if constexpr (
      requires { e.generation; } && !requires { e.id; }) {
    return e.generation;
  } else {
    return e.id;
  }
}

template <class T>
void add_or_replace(std::vector<T>& list, T entry) {
  const std::string key = normalize_name(key_of(entry));
  for (auto& e : list) {
    if (normalize_name(key_of(e)) == key) {
      e = std::move(entry);
      return;
    }
  }
  list.push_back(std::move(entry));
}

template <class T>
core::Result<const T*> find(const std::vector<T>& list, std::string_view name, const char* what) {
  const std::string key = normalize_name(name);
  for (const auto& e : list) {
    if (normalize_name(key_of(e)) == key) return &e;
  }
  for (const auto& e : list) {
    if (const auto* aliases = aliases_of(e)) {
      for (const auto& a : *aliases) {
        if (normalize_name(a) == key) return &e;
      }
    }
  }
  std::vector<std::string> ids;
  for (const auto& e : list) ids.push_back(key_of(e));
  std::string message = std::string("unknown ") + what + " '" + std::string(name) + "'." +
                        core::did_you_mean(name, ids);
  const std::string kind(what);
  if (kind == "gpu" || kind == "instance" || kind == "model" || kind == "server") {
    message += " Run 'aicost catalog " + kind + "s' to list them.";
  }
  return core::make_error(core::ErrorCode::kNotFound, message);
}

}  // namespace

void Catalog::add(GpuSpec gpu) { add_or_replace(gpus_, std::move(gpu)); }
void Catalog::add(EfficiencyProfile p) { add_or_replace(efficiencies_, std::move(p)); }
void Catalog::add(Instance i) { add_or_replace(instances_, std::move(i)); }
void Catalog::add(StoragePrice p) { add_or_replace(storage_, std::move(p)); }
void Catalog::add(NetworkPrice p) { add_or_replace(network_, std::move(p)); }
void Catalog::add(ModelSpec m) { add_or_replace(models_, std::move(m)); }
void Catalog::add(Server s) { add_or_replace(servers_, std::move(s)); }
void Catalog::add(CompressionFigure f) { add_or_replace(compression_, std::move(f)); }
void Catalog::add(SoftwareEra e) { add_or_replace(software_, std::move(e)); }

core::Result<const GpuSpec*> Catalog::gpu(std::string_view n) const {
  return find(gpus_, n, "gpu");
}
core::Result<const EfficiencyProfile*> Catalog::efficiency(std::string_view g) const {
  return find(efficiencies_, g, "efficiency profile");
}
core::Result<const Instance*> Catalog::instance(std::string_view n) const {
  return find(instances_, n, "instance");
}
core::Result<const StoragePrice*> Catalog::storage(std::string_view n) const {
  return find(storage_, n, "storage price");
}
core::Result<const NetworkPrice*> Catalog::network(std::string_view n) const {
  return find(network_, n, "network price");
}
core::Result<const ModelSpec*> Catalog::model(std::string_view n) const {
  return find(models_, n, "model");
}
core::Result<const Server*> Catalog::server(std::string_view n) const {
  return find(servers_, n, "server");
}

core::Result<const CompressionFigure*> Catalog::compression(std::string_view codec,
                                                            std::string_view content) const {
  std::vector<std::string> codecs;
  for (const auto& f : compression_) {
    if (normalize_name(f.content) != normalize_name(content)) continue;
    if (normalize_name(f.codec) == normalize_name(codec)) return &f;
    codecs.push_back(f.codec);
  }
  if (codecs.empty()) {
    return core::make_error(core::ErrorCode::kNotFound,
                            "no compression figure for content '" + std::string(content) +
                                "' in the catalog (data/compression.yaml)");
  }
  std::string measured;
  for (const auto& c : codecs) measured += (measured.empty() ? "" : ", ") + c;
  return core::make_error(core::ErrorCode::kNotFound,
                          "no figure of '" + std::string(codec) + "' on " + std::string(content) +
                              " in data/compression.yaml." + core::did_you_mean(codec, codecs) +
                              " Measured: " + measured + " (or none)");
}

core::Result<const SoftwareEra*> Catalog::software(std::string_view id) const {
  return find(software_, id, "software era");
}

const Server* Catalog::server_for(std::string_view gpu) const {
  const std::string want = normalize_name(gpu);
  const Server* best = nullptr;
  const Server* unpriced = nullptr;
  for (const auto& s : servers_) {
    if (normalize_name(s.gpu) != want) continue;
    if (!s.priced()) {
      if (!unpriced) unpriced = &s;
    } else if (!best || s.price / s.gpus < best->price / best->gpus) {
      best = &s;
    }
  }
  return best ? best : unpriced;
}

}  // namespace aicost::catalog

namespace aicost::catalog {

const ErrorBand* ErrorBands::find(const std::string& regime) const {
  for (const auto& b : bands) {
    if (b.regime == regime) return &b;
  }
  return nullptr;
}

}  // namespace aicost::catalog
