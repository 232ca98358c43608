// A temporary folder a test owns: made fresh and unique (mkdtemp) under the system's temporary
// folder, removed with everything in it when the object dies, whether the test passed or failed.
// Every test that writes files writes them here (`make test` fails when /tmp is left changed).
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace aicost::testing {

class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "aicost-test") {
    std::string pattern =
        (std::filesystem::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << pattern << " failed";
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // The path of `name` inside the folder (not created).
  std::string file(std::string_view name) const { return (path_ / name).string(); }
  // Writes `text` to `name` inside the folder (making its subfolders) and returns its path.
  std::string write(std::string_view name, std::string_view text) const {
    const auto p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

}  // namespace aicost::testing
