#include "spool.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace aicost::billing {

core::Result<Spool> Spool::open() {
  const char* env = std::getenv("TMPDIR");
  const std::string dir = env && *env ? env : "/tmp";
  Spool s;
  s.fd_ = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (s.fd_ < 0) {
    std::string name = dir + "/aicost-parquet.XXXXXX";
    s.fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (s.fd_ >= 0) ::unlink(name.c_str());
  }
  if (s.fd_ < 0)
    return core::make_error(core::ErrorCode::kIo, "cannot make a temporary file in " + dir +
                                                      " to read the Parquet data from (" +
                                                      std::strerror(errno) +
                                                      "); set TMPDIR to a folder with room");
  s.dir_ = dir;
  return s;
}

core::Status Spool::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return core::make_error(core::ErrorCode::kIo,
                              "cannot write the Parquet data to a temporary file in " + dir_ +
                                  " (" + std::strerror(errno) +
                                  "); set TMPDIR to a folder with room");
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

}  // namespace aicost::billing
