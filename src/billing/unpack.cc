#include "unpack.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace aicost::billing {
namespace {

namespace fs = std::filesystem;

using Archive = std::unique_ptr<archive, int (*)(archive*)>;

core::Error bad(const std::string& path, const std::string& what) {
  return core::make_error(core::ErrorCode::kInvalidInput, what, path);
}

// A member name that stays inside the folder: relative, no `..` part, not empty.
bool contained(const fs::path& name) {
  if (name.empty() || name.is_absolute() || name.has_root_name()) return false;
  for (const auto& part : name)
    if (part == "..") return false;
  return true;
}

}  // namespace

UnpackedArchive::~UnpackedArchive() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

core::Result<std::optional<std::shared_ptr<UnpackedArchive>>> unpack_tar(const std::string& path) {
  Archive a(archive_read_new(), archive_read_free);
  if (!a) return core::make_error(core::ErrorCode::kInternal, "libarchive could not start");
  archive_read_support_filter_gzip(a.get());
  archive_read_support_filter_zstd(a.get());
  archive_read_support_filter_bzip2(a.get());
  archive_read_support_filter_xz(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_filename(a.get(), path.c_str(), 1 << 20) != ARCHIVE_OK)
    return std::optional<std::shared_ptr<UnpackedArchive>>{};
  archive_entry* entry = nullptr;
  int r = archive_read_next_header(a.get(), &entry);
  if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
    return std::optional<std::shared_ptr<UnpackedArchive>>{};  // no tar header: not a tar archive

  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/aicost-unpack.XXXXXX";
  std::vector<char> name(templ.begin(), templ.end());
  name.push_back('\0');
  if (!::mkdtemp(name.data()))
    return core::make_error(core::ErrorCode::kIo, "cannot make a folder to unpack the archive in",
                            path);
  auto out = std::make_shared<UnpackedArchive>(std::string(name.data()));
  std::vector<char> buffer(1 << 20);
  for (; r == ARCHIVE_OK || r == ARCHIVE_WARN; r = archive_read_next_header(a.get(), &entry)) {
    const char* member = archive_entry_pathname(entry);
    const fs::path rel = fs::path(member ? member : "").lexically_normal();
    const auto type = archive_entry_filetype(entry);
    if (type == AE_IFDIR) continue;
    if (type != AE_IFREG)
      return bad(
          path,
          std::string("the archive member '") + (member ? member : "") +
              "' is not a plain file (a link or device); unpack the archive and load its reports");
    if (!contained(rel))
      return bad(path, std::string("the archive member '") + (member ? member : "") +
                           "' would land outside the folder it unpacks to; refused");
    const fs::path target = fs::path(out->dir()) / rel;
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    const int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
      return core::make_error(core::ErrorCode::kIo,
                              "cannot unpack the archive member '" + rel.string() + "'", path);
    for (;;) {
      const la_ssize_t n = archive_read_data(a.get(), buffer.data(), buffer.size());
      if (n < 0) {
        ::close(fd);
        return bad(path, std::string("the archive is damaged or cut short in '") + rel.string() +
                             "' (" + archive_error_string(a.get()) + "); fetch it again");
      }
      if (n == 0) break;
      for (la_ssize_t done = 0; done < n;) {
        const ssize_t w = ::write(fd, buffer.data() + done, static_cast<std::size_t>(n - done));
        if (w <= 0) {
          ::close(fd);
          return core::make_error(core::ErrorCode::kIo,
                                  "cannot write the unpacked member '" + rel.string() + "'", path);
        }
        done += w;
      }
    }
    if (::close(fd) != 0)
      return core::make_error(core::ErrorCode::kIo,
                              "cannot write the unpacked member '" + rel.string() + "'", path);
  }
  if (r != ARCHIVE_EOF)
    return bad(path, std::string("the archive is damaged or cut short (") +
                         archive_error_string(a.get()) + "); fetch it again");
  return std::optional<std::shared_ptr<UnpackedArchive>>(std::move(out));
}

}  // namespace aicost::billing
