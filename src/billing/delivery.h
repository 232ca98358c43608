// What `aicost ledger ingest ARG` loads as one source: a file, standard input, a folder of parts,
// or the parts a provider's manifest lists (docs/LEDGER.md, "Exports as delivered").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "aicost/core/result.h"

namespace aicost::billing {

struct Delivery {
  std::string
      path;  // what the source is recorded as: the file, manifest or folder, absolute; "(stdin)"
  std::vector<std::string> parts;  // the files to read, in order (the path itself for a file)
  std::string manifest;            // the manifest read, if any
  std::string export_name;  // the export the manifest names (AWS exportArn or reportName, Azure
                            // exportName, koku cluster_id)
  // A folder or a manifest is a provider's whole delivery of its billing periods: loading it
  // replaces an earlier delivery of the same periods of the same export (a restatement). Not an
  // OpenShift upload's manifest: an upload holds hours of a month, and adds to the ledger.
  bool whole_periods = false;
  // A tar archive (koku's cost-mgmt.tar.gz uploads) is loaded as the folder it unpacks to: `path`
  // is the archive, `parts` lie in a private folder removed when the last copy of this goes.
  std::shared_ptr<const void> unpacked;
};

// Whether `name` is a manifest: AWS `<export>-Manifest.json` (Data Exports and legacy CUR) or
// Azure `manifest.json`.
bool is_manifest_name(const std::string& name);

// Resolves ARG: "-" or /dev/stdin (standard input), a file, a manifest, or a folder. A folder with
// a manifest directly in it is that manifest's delivery; a folder without one is every file in it
// and below, in path order, except hidden files and JSON; a folder with several manifests directly
// in it, or none there and some below, is an error that names them (each is its own delivery).
// Manifests: AWS Data Exports (`dataFiles`: S3 URIs), legacy CUR (`reportKeys`: S3 keys), Azure
// cost exports (`blobs[].blobName`), koku's OpenShift metrics operator (`files`, with
// `cluster_id`). A listed key is found locally by trying its trailing path parts (longest first)
// under the manifest's folder and then each folder above it, so a bucket synced anywhere
// resolves; a part not found is an error naming it. A tar archive, plain or compressed (gzip,
// zstd, bzip2, xz), is the delivery of the folder it unpacks to, as above.
core::Result<Delivery> resolve_delivery(const std::string& arg);

}  // namespace aicost::billing
