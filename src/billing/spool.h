// A private temporary file to copy Parquet data into where it cannot be seeked in.
#pragma once

#include <unistd.h>

#include <string>
#include <string_view>
#include <utility>

#include "aicost/core/result.h"

namespace aicost::billing {

// A Parquet file met where it cannot be seeked in (standard input, a member of an archive, the
// content of a compressed file) is copied to a private temporary file first: opened with O_TMPFILE
// in $TMPDIR (else /tmp), so it has no name and the system frees it when the descriptor closes,
// even when the process is killed; where O_TMPFILE is not supported, mkstemp and an unlink at once.
class Spool {
 public:
  static core::Result<Spool> open();
  Spool() = default;
  Spool(Spool&& o) noexcept : fd_(std::exchange(o.fd_, -1)), dir_(std::move(o.dir_)) {}
  Spool& operator=(Spool&& o) noexcept {
    std::swap(fd_, o.fd_);
    dir_ = std::move(o.dir_);
    return *this;
  }
  ~Spool() {
    if (fd_ >= 0) ::close(fd_);
  }
  core::Status write(std::string_view bytes);
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::string dir_;
};

}  // namespace aicost::billing
