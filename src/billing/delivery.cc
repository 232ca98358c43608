#include "delivery.h"

#include "unpack.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "aicost/billing/source.h"
#include "aicost/core/text.h"

namespace aicost::billing {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string absolute_text(const fs::path& p) {
  std::error_code ec;
  auto a = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? p.string() : a.string();
}

// The local file for a key a manifest lists ("s3://bucket/prefix/x/part-1.csv.gz", or a key or
// blob name relative to its bucket or container).
core::Result<std::string> find_part(const fs::path& manifest, std::string key) {
  if (key.rfind("s3://", 0) == 0) {
    const auto slash = key.find('/', 5);
    key = slash == std::string::npos ? "" : key.substr(slash + 1);
  }
  std::vector<std::string> parts;
  for (std::size_t start = 0; start < key.size();) {
    const auto slash = std::min(key.find('/', start), key.size());
    if (slash > start) parts.push_back(key.substr(start, slash - start));
    start = slash + 1;
  }
  if (parts.empty())
    return core::make_error(core::ErrorCode::kInvalidInput, "the manifest lists an empty file name",
                            manifest.string());
  std::error_code ec;
  for (fs::path dir = manifest.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    for (std::size_t skip = 0; skip < parts.size(); ++skip) {
      fs::path candidate = dir;
      for (std::size_t i = skip; i < parts.size(); ++i) candidate /= parts[i];
      if (fs::is_regular_file(candidate, ec)) return absolute_text(candidate);
    }
    if (dir == dir.parent_path()) break;
  }
  return core::make_error(
      core::ErrorCode::kInvalidInput,
      "the manifest lists '" + key +
          "', which is not under its folder or any folder above it; "
          "copy the whole delivery (every file the manifest lists) before loading it",
      manifest.string());
}

std::string text_at(const Json& j, std::initializer_list<const char*> path) {
  const Json* at = &j;
  for (const char* k : path) {
    if (!at->is_object() || !at->contains(k)) return "";
    at = &(*at)[k];
  }
  return at->is_string() ? at->get<std::string>() : "";
}

core::Result<Delivery> read_manifest(const fs::path& manifest) {
  std::ifstream in(manifest);
  if (!in)
    return core::make_error(core::ErrorCode::kIo, "cannot open the manifest", manifest.string());
  std::stringstream text;
  text << in.rdbuf();
  Json j;
  try {
    j = Json::parse(text.str());
  } catch (const Json::exception& e) {
    return core::make_error(core::ErrorCode::kParse,
                            std::string("the manifest is not JSON: ") + e.what(),
                            manifest.string());
  }
  Delivery d;
  d.path = absolute_text(manifest);
  d.manifest = d.path;
  d.whole_periods = true;
  std::vector<std::string> keys;
  auto strings = [&](const char* field) {
    if (j.is_object() && j.contains(field) && j[field].is_array())
      for (const auto& k : j[field])
        if (k.is_string()) keys.push_back(k.get<std::string>());
  };
  if (j.is_object() && j.contains("dataFiles")) {  // AWS Data Exports (CUR 2.0, FOCUS)
    strings("dataFiles");
    d.export_name = text_at(j, {"exportArn"});
    if (d.export_name.empty()) d.export_name = text_at(j, {"exportName"});
  } else if (j.is_object() && j.contains("reportKeys")) {  // AWS legacy CUR
    strings("reportKeys");
    d.export_name = text_at(j, {"reportName"});
  } else if (j.is_object() && j.contains("blobs")) {  // Azure cost export
    if (j["blobs"].is_array())
      for (const auto& b : j["blobs"])
        if (b.is_object() && b.contains("blobName") && b["blobName"].is_string())
          keys.push_back(b["blobName"].get<std::string>());
    d.export_name = text_at(j, {"exportConfig", "resourceId"});
    if (d.export_name.empty()) d.export_name = text_at(j, {"exportConfig", "exportName"});
  } else if (j.is_object() && j.contains("files") && j.contains("cluster_id")) {
    // koku's metrics operator (an OpenShift upload): its cost reports, not its
    // resource_optimization_files. An upload holds some hours of a month, not the month: it adds
    // to the ledger and restates nothing.
    strings("files");
    d.export_name = text_at(j, {"cluster_id"});
    d.whole_periods = false;
  } else {
    return core::make_error(
        core::ErrorCode::kInvalidInput,
        "this manifest lists no data files (no dataFiles, reportKeys, blobs or files); is it an "
        "AWS "
        "Data Exports, AWS CUR, Azure export or OpenShift cost management manifest?",
        manifest.string());
  }
  if (keys.empty())
    return core::make_error(core::ErrorCode::kInvalidInput,
                            "the manifest lists no data files; nothing to load", manifest.string());
  for (const auto& k : keys) {
    auto part = find_part(manifest, k);
    if (!part) return part.error();
    d.parts.push_back(*part);
  }
  return d;
}

}  // namespace

bool is_manifest_name(const std::string& name) {
  const std::string l = core::ascii_lower(name);
  return l == "manifest.json" || ends_with(l, "-manifest.json");
}

core::Result<Delivery> resolve_delivery(const std::string& arg) {
  Delivery d;
  if (is_stdin(arg)) {
    d.path = kStdinName;
    d.parts = {arg};
    return d;
  }
  std::error_code ec;
  const fs::path p(arg);
  if (!fs::is_directory(p, ec)) {
    if (is_manifest_name(p.filename().string()) && fs::is_regular_file(p, ec))
      return read_manifest(p);
    d.path = absolute_text(p);
    d.parts = {arg};
    if (!fs::is_regular_file(p, ec)) return d;
    auto unpacked = unpack_tar(arg);
    if (!unpacked) return unpacked.error();
    if (!*unpacked) return d;
    auto inside = resolve_delivery((**unpacked)->dir());
    if (!inside) return inside.error().with_context(arg);
    inside->path = d.path;
    inside->unpacked = std::move(**unpacked);
    return inside;
  }
  std::vector<fs::path> here, below, files;
  for (auto it =
           fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (!name.empty() && name[0] == '.') {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec)) continue;
    if (is_manifest_name(name))
      (it.depth() == 0 ? here : below).push_back(it->path());
    else if (core::ascii_lower(it->path().extension().string()) != ".json")
      files.push_back(it->path());
  }
  if (ec)
    return core::make_error(core::ErrorCode::kIo, "cannot list the folder: " + ec.message(), arg);
  std::sort(here.begin(), here.end());
  std::sort(below.begin(), below.end());
  if (here.size() == 1) return read_manifest(here.front());
  if (!here.empty() || !below.empty()) {
    const auto& all = here.empty() ? below : here;
    return core::make_error(
        core::ErrorCode::kInvalidInput,
        "this folder holds " + std::to_string(all.size()) + " manifests (" + all.front().string() +
            (all.size() > 1 ? ", ..." : "") +
            "), each a delivery of its own; ingest each manifest (or the folder it is in), "
            "the oldest delivery of a period first",
        arg);
  }
  if (files.empty())
    return core::make_error(core::ErrorCode::kInvalidInput, "this folder holds no files to load",
                            arg);
  std::sort(files.begin(), files.end());
  d.path = absolute_text(p);
  for (const auto& f : files) d.parts.push_back(f.string());
  d.whole_periods = true;
  return d;
}

}  // namespace aicost::billing
