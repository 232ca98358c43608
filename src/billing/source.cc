#include "aicost/billing/source.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

namespace aicost::billing {
namespace {

constexpr std::size_t kRead = 1 << 20;

// The file descriptor a source reads, closed when it is not standard input.
class Input {
 public:
  static core::Result<Input> open(const std::string& path) {
    Input in;
    in.path_ = path;
    if (is_stdin(path)) {
      in.fd_ = 0;
    } else {
      in.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (in.fd_ < 0)
        return core::make_error(core::ErrorCode::kIo,
                                std::string("cannot open the file: ") + std::strerror(errno), path);
      in.owned_ = true;
    }
    struct stat st {};
    if (::fstat(in.fd_, &st) == 0) {
      in.mtime_ = st.st_mtime;
      if (S_ISDIR(st.st_mode))
        return core::make_error(core::ErrorCode::kInvalidInput, "this is a folder, not a file",
                                path);
    }
    return in;
  }
  Input() = default;
  Input(Input&& o) noexcept { *this = std::move(o); }
  Input& operator=(Input&& o) noexcept {
    std::swap(fd_, o.fd_);
    std::swap(owned_, o.owned_);
    path_ = std::move(o.path_);
    mtime_ = o.mtime_;
    return *this;
  }
  ~Input() {
    if (owned_ && fd_ >= 0) ::close(fd_);
  }

  // Up to `n` bytes; 0 at the end.
  core::Result<std::size_t> read(char* to, std::size_t n) {
    for (;;) {
      const ssize_t got = ::read(fd_, to, n);
      if (got >= 0) {
        delivered_ += got;
        return static_cast<std::size_t>(got);
      }
      if (errno != EINTR)
        return core::make_error(core::ErrorCode::kIo,
                                std::string("read error: ") + std::strerror(errno), path_);
    }
  }
  std::int64_t delivered() const { return delivered_; }
  ledger::UnixSeconds mtime() const { return mtime_; }

 private:
  int fd_ = -1;
  bool owned_ = false;
  std::string path_;
  ledger::UnixSeconds mtime_ = 0;
  std::int64_t delivered_ = 0;
};

// libarchive pulls its input through this: first the bytes already read to sniff, then the rest.
struct Feed {
  Input* input;
  std::vector<char> buffer;
  std::size_t head = 0;  // bytes of `buffer` read before libarchive started, not yet handed over
  std::string error;     // an I/O error of ours, beside libarchive's message
};

la_ssize_t feed_read(struct archive*, void* data, const void** out) {
  auto* f = static_cast<Feed*>(data);
  *out = f->buffer.data();
  if (f->head > 0) {
    const std::size_t n = f->head;
    f->head = 0;
    return static_cast<la_ssize_t>(n);
  }
  auto n = f->input->read(f->buffer.data(), f->buffer.size());
  if (!n) {
    f->error = n.error().message;
    return -1;
  }
  return static_cast<la_ssize_t>(*n);
}

const char* what_to_do(Encoding e) {
  switch (e) {
    case Encoding::kGzip: return "gzip -t FILE tells whether a copy is whole";
    case Encoding::kZstd: return "zstd -t FILE tells whether a copy is whole";
    case Encoding::kZip: return "unzip -t FILE tells whether a copy is whole";
    case Encoding::kBzip2: return "bzip2 -t FILE tells whether a copy is whole";
    case Encoding::kXz: return "xz -t FILE tells whether a copy is whole";
    default: return "";
  }
}

core::Error damaged(const std::string& path, Encoding e, std::int64_t decoded,
                    const std::string& why) {
  std::string todo = what_to_do(e);
  const std::string file = path == kStdinName ? "on the file it came from" : path;
  for (auto at = todo.find("FILE"); at != std::string::npos;
       at = todo.find("FILE", at + file.size()))
    todo.replace(at, 4, file);
  return core::make_error(
      core::ErrorCode::kInvalidInput,
      std::string("the ") + encoding_name(e) + " data is damaged or cut short after " +
          std::to_string(decoded) + " decoded bytes (" + why +
          "); nothing of this file is loaded; fetch it again from the provider (" + todo + ")",
      path);
}

// Gzip through zlib rather than libarchive: libarchive's gzip filter leaves each member's CRC-32
// and length unchecked (archive_read_support_filter_gzip.c, consume_trailer: "XXX TODO: Verify
// the length and CRC-32 fields"), so a damaged file could decode to wrong rows without a word.
// zlib's gzip wrapper (windowBits 16 + 15) checks both; members one after another are read on.
core::Status decode_gzip(const std::string& path, Feed& feed, const DecodedSink& sink,
                         DecodeInfo& info) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
    return core::make_error(core::ErrorCode::kInternal, "zlib could not start");
  struct End {
    z_stream* z;
    ~End() { inflateEnd(z); }
  } end{&zs};
  ++info.members;
  if (sink.begin)
    if (auto s = sink.begin(""); !s) return s;
  std::vector<char> out(kRead);
  zs.next_in = reinterpret_cast<Bytef*>(feed.buffer.data());
  zs.avail_in = static_cast<uInt>(feed.head);
  feed.head = 0;
  bool ended = false;  // the last member begun is complete
  for (;;) {
    if (zs.avail_in == 0) {
      auto n = feed.input->read(feed.buffer.data(), feed.buffer.size());
      if (!n) return n.error().with_context(path);
      if (*n == 0) break;
      zs.next_in = reinterpret_cast<Bytef*>(feed.buffer.data());
      zs.avail_in = static_cast<uInt>(*n);
    }
    if (ended) {  // another member follows
      if (inflateReset(&zs) != Z_OK)
        return damaged(path, Encoding::kGzip, info.decoded_bytes, "zlib could not go on");
      ended = false;
    }
    // Until the input is used up, or the member ends (the output buffer may fill many times).
    do {
      zs.next_out = reinterpret_cast<Bytef*>(out.data());
      zs.avail_out = static_cast<uInt>(out.size());
      const int r = inflate(&zs, Z_NO_FLUSH);
      const std::size_t produced = out.size() - zs.avail_out;
      if (produced > 0) {
        info.decoded_bytes += static_cast<std::int64_t>(produced);
        if (auto s = sink.bytes(std::string_view(out.data(), produced)); !s) return s;
      }
      if (r == Z_STREAM_END) {
        ended = true;
        break;
      }
      if (r != Z_OK && r != Z_BUF_ERROR)
        return damaged(path, Encoding::kGzip, info.decoded_bytes,
                       zs.msg ? zs.msg : "zlib error " + std::to_string(r));
    } while (zs.avail_out == 0);
  }
  if (!ended)
    return damaged(path, Encoding::kGzip, info.decoded_bytes,
                   "the file ends inside the compressed data");
  if (sink.end)
    if (auto s = sink.end(); !s) return s;
  return {};
}

core::Status decode_archive(Encoding e, const std::string& path, Feed& feed,
                            const DecodedSink& sink, DecodeInfo& info) {
  std::unique_ptr<struct archive, int (*)(struct archive*)> a(archive_read_new(),
                                                              &archive_read_free);
  if (!a) return core::make_error(core::ErrorCode::kInternal, "libarchive could not start");
  switch (e) {
    case Encoding::kGzip:
      archive_read_support_filter_gzip(a.get());
      archive_read_support_format_raw(a.get());
      break;
    case Encoding::kZstd:
      archive_read_support_filter_zstd(a.get());
      archive_read_support_format_raw(a.get());
      break;
    case Encoding::kBzip2:
      archive_read_support_filter_bzip2(a.get());
      archive_read_support_format_raw(a.get());
      break;
    case Encoding::kXz:
      archive_read_support_filter_xz(a.get());
      archive_read_support_format_raw(a.get());
      break;
    case Encoding::kZip: archive_read_support_format_zip(a.get()); break;
    case Encoding::kPlain: break;
  }
  if (archive_read_open(a.get(), &feed, nullptr, &feed_read, nullptr) != ARCHIVE_OK)
    return damaged(path, e, 0, feed.error.empty() ? archive_error_string(a.get()) : feed.error);
  std::vector<char> out(kRead);
  for (;;) {
    struct archive_entry* entry = nullptr;
    const int r = archive_read_next_header(a.get(), &entry);
    if (r == ARCHIVE_EOF) break;
    if (r < ARCHIVE_WARN) {
      const char* why = archive_error_string(a.get());
      return damaged(path, e, info.decoded_bytes,
                     feed.error.empty() ? (why ? why : "unknown") : feed.error);
    }
    // A raw stream has one entry named "data"; a zip's directories carry no data.
    std::string member;
    if (e == Encoding::kZip) {
      if (archive_entry_filetype(entry) != AE_IFREG) continue;
      const char* name = archive_entry_pathname(entry);
      member = name ? name : "?";
    }
    ++info.members;
    if (sink.begin)
      if (auto s = sink.begin(member); !s) return s;
    for (;;) {
      const la_ssize_t n = archive_read_data(a.get(), out.data(), out.size());
      if (n == 0) break;
      if (n < 0) {
        const char* why = archive_error_string(a.get());
        return damaged(path, e, info.decoded_bytes,
                       feed.error.empty() ? (why ? why : "unknown") : feed.error);
      }
      info.decoded_bytes += n;
      if (auto s = sink.bytes(std::string_view(out.data(), static_cast<std::size_t>(n))); !s)
        return s;
    }
    if (sink.end)
      if (auto s = sink.end(); !s) return s;
  }
  if (e == Encoding::kZip && info.members == 0)
    return core::make_error(core::ErrorCode::kInvalidInput,
                            "this zip archive holds no file; export the data again", path);
  return {};
}

}  // namespace

const char* encoding_name(Encoding e) {
  switch (e) {
    case Encoding::kPlain: return "plain";
    case Encoding::kGzip: return "gzip";
    case Encoding::kZstd: return "zstd";
    case Encoding::kZip: return "zip";
    case Encoding::kBzip2: return "bzip2";
    case Encoding::kXz: return "xz";
  }
  return "?";
}

Encoding sniff_encoding(std::string_view head) {
  auto starts = [&](std::string_view magic) { return head.substr(0, magic.size()) == magic; };
  if (starts("\x1F\x8B")) return Encoding::kGzip;
  if (starts("\x28\xB5\x2F\xFD")) return Encoding::kZstd;
  if (starts("PK\x03\x04")) return Encoding::kZip;
  // bzip2: "BZh" and the block size (1-9, in 100k); a CSV header "BZh,x" stays text.
  if (starts("BZh") && head.size() >= 4 && head[3] >= '1' && head[3] <= '9')
    return Encoding::kBzip2;
  if (starts(std::string_view("\xFD"
                              "7zXZ\0",
                              6)))
    return Encoding::kXz;
  return Encoding::kPlain;
}

bool is_stdin(const std::string& path) { return path == "-" || path == "/dev/stdin"; }

core::Result<DecodeInfo> decode_source(const std::string& path, const DecodedSink& sink) {
  auto input = Input::open(path);
  if (!input) return input.error();
  const std::string name = is_stdin(path) ? kStdinName : path;
  DecodeInfo info;
  info.mtime = input->mtime();
  Feed feed{&*input, std::vector<char>(kRead), 0, {}};
  // Fill at least the 6 bytes that tell the encoding (a pipe may hand them over one at a time).
  std::size_t have = 0;
  for (;;) {
    auto n = input->read(feed.buffer.data() + have, feed.buffer.size() - have);
    if (!n) return n.error().with_context(name);
    have += *n;
    if (*n == 0 || have >= 6) break;
  }
  info.encoding = sniff_encoding(std::string_view(feed.buffer.data(), have));
  if (info.encoding != Encoding::kPlain) {
    feed.head = have;
    auto s = info.encoding == Encoding::kGzip
                 ? decode_gzip(name, feed, sink, info)
                 : decode_archive(info.encoding, name, feed, sink, info);
    if (!s) return s.error();
    info.delivered_bytes = input->delivered();
    return info;
  }
  info.members = 1;
  if (sink.begin)
    if (auto s = sink.begin(""); !s) return s.error();
  for (std::size_t n = have; n > 0;) {
    info.decoded_bytes += static_cast<std::int64_t>(n);
    if (auto s = sink.bytes(std::string_view(feed.buffer.data(), n)); !s) return s.error();
    auto got = input->read(feed.buffer.data(), feed.buffer.size());
    if (!got) return got.error().with_context(name);
    n = *got;
  }
  if (sink.end)
    if (auto s = sink.end(); !s) return s.error();
  info.delivered_bytes = input->delivered();
  return info;
}

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr);
}
Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }
void Sha256::update(std::string_view bytes) {
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), bytes.data(), bytes.size());
}
std::string Sha256::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  auto* ctx = static_cast<EVP_MD_CTX*>(ctx_);
  EVP_DigestFinal_ex(ctx, digest, &len);
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 15]);
  }
  return out;
}

core::Result<std::vector<std::string>> member_digests(const std::string& path) {
  std::vector<std::string> out;
  Sha256 sha;
  DecodedSink sink;
  sink.bytes = [&](std::string_view b) -> core::Status {
    sha.update(b);
    return {};
  };
  sink.end = [&]() -> core::Status {
    out.push_back(sha.hex());
    return {};
  };
  auto info = decode_source(path, sink);
  if (!info) return info.error();
  return out;
}

std::string delivery_identity(std::vector<std::string> member_sha256) {
  if (member_sha256.size() == 1) return member_sha256.front();
  std::sort(member_sha256.begin(), member_sha256.end());
  Sha256 h;
  h.update("aicost-parts\n");
  for (const auto& s : member_sha256) {
    h.update(s);
    h.update("\n");
  }
  return h.hex();
}

}  // namespace aicost::billing
