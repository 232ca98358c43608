// Tar archives as a delivery: koku's metrics operator uploads each payload as a gzip-compressed tar
// (`<time>-cost-mgmt.tar.gz`: its manifest.json and the reports it lists; koku's own test payloads,
// koku/masu/test/data/ocp/payload.tar.gz). `ingest` loads such a file as the folder it unpacks to.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "aicost/core/result.h"

namespace aicost::billing {

// A private folder (mode 0700, under $TMPDIR or /tmp) holding an archive's files, removed with
// everything in it when the last owner lets go.
class UnpackedArchive {
 public:
  explicit UnpackedArchive(std::string dir) : dir_(std::move(dir)) {}
  ~UnpackedArchive();
  UnpackedArchive(const UnpackedArchive&) = delete;
  UnpackedArchive& operator=(const UnpackedArchive&) = delete;
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

// nullopt when `path` is no tar archive (plain, or gzip, zstd, bzip2 or xz compressed; libarchive
// tells a tar by its header checksum). Else its regular files unpacked, streaming, with their
// relative paths; a member whose name leaves the folder (absolute, `..`), and links, are refused
// with the member's name; directories are made as needed. Damaged data fails naming the archive.
core::Result<std::optional<std::shared_ptr<UnpackedArchive>>> unpack_tar(const std::string& path);

}  // namespace aicost::billing
