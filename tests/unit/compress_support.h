// Writes gzip, zstd, bzip2, xz and zip copies of test data with libarchive's writers (the readers
// under test use libarchive's readers; the formats are standard, so `gzip -t`, `zstd -t` and `unzip
// -t` read these files too).
#pragma once

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace aicost::testing {

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

enum class Packing { kGzip, kZstd, kZip, kBzip2, kXz };

// Writes `members` (name, bytes) to `path`: one raw compressed stream for gzip, zstd, bzip2 and xz
// (the name ignored), a zip archive of deflated members for zip.
inline void write_packed(const std::string& path, Packing packing,
                         const std::vector<std::pair<std::string, std::string>>& members) {
  std::unique_ptr<struct archive, int (*)(struct archive*)> a(archive_write_new(),
                                                              &archive_write_free);
  switch (packing) {
    case Packing::kGzip:
      archive_write_add_filter_gzip(a.get());
      archive_write_set_format_raw(a.get());
      break;
    case Packing::kZstd:
      archive_write_add_filter_zstd(a.get());
      archive_write_set_format_raw(a.get());
      break;
    case Packing::kBzip2:
      archive_write_add_filter_bzip2(a.get());
      archive_write_set_format_raw(a.get());
      break;
    case Packing::kXz:
      archive_write_add_filter_xz(a.get());
      archive_write_set_format_raw(a.get());
      break;
    case Packing::kZip: archive_write_set_format_zip(a.get()); break;
  }
  ASSERT_EQ(archive_write_open_filename(a.get(), path.c_str()), ARCHIVE_OK)
      << archive_error_string(a.get());
  for (const auto& [name, bytes] : members) {
    std::unique_ptr<struct archive_entry, void (*)(struct archive_entry*)> e(archive_entry_new(),
                                                                             &archive_entry_free);
    archive_entry_set_pathname(e.get(), name.c_str());
    archive_entry_set_filetype(e.get(), AE_IFREG);
    archive_entry_set_perm(e.get(), 0644);
    archive_entry_set_size(e.get(), static_cast<la_int64_t>(bytes.size()));
    ASSERT_EQ(archive_write_header(a.get(), e.get()), ARCHIVE_OK) << archive_error_string(a.get());
    ASSERT_EQ(archive_write_data(a.get(), bytes.data(), bytes.size()),
              static_cast<la_ssize_t>(bytes.size()));
  }
  ASSERT_EQ(archive_write_close(a.get()), ARCHIVE_OK) << archive_error_string(a.get());
}

}  // namespace aicost::testing
