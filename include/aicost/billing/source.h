// A delivered file as the readers see it: opened from a path or standard input, its encoding told
// by its first bytes (never its name), and decoded while it streams, in bounded memory. This is the
// one place that sniffs what a file *is* before any reader looks at its text (docs/LEDGER.md,
// "Exports as delivered").
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/charge.h"

namespace aicost::billing {

enum class Encoding {
  kPlain,  // anything else: text, or bytes a reader refuses by their own first bytes (Parquet,
           // UTF-16)
  kGzip,   // 1F 8B
  kZstd,   // 28 B5 2F FD
  kZip,    // PK 03 04 (a zip archive: each file in it is a member)
  kBzip2,  // "BZh" and a block size digit 1-9
  kXz,     // FD "7zXZ" 00
};
const char* encoding_name(Encoding e);  // "plain", "gzip", "zstd", "zip", "bzip2", "xz"

// What the first bytes of a delivered file say about its encoding (6 bytes decide).
Encoding sniff_encoding(std::string_view head);

// "-" and "/dev/stdin" read standard input.
bool is_stdin(const std::string& path);
// The name a source read from standard input is recorded under.
inline constexpr const char* kStdinName = "(stdin)";

// Receives a source's decoded bytes, member by member: one member named "" for a plain, gzip,
// zstd, bzip2 or xz file; each regular file of a zip archive in archive order, named by its path in
// the archive (directories are skipped). An error returned by a callback stops the read and is
// returned.
struct DecodedSink {
  std::function<core::Status(const std::string& member)> begin;
  std::function<core::Status(std::string_view bytes)> bytes;
  std::function<core::Status()> end;
};

struct DecodeInfo {
  Encoding encoding = Encoding::kPlain;
  std::int64_t delivered_bytes = 0;  // bytes read from the file or pipe
  std::int64_t decoded_bytes = 0;    // bytes handed to the sink, all members
  int members = 0;
  ledger::UnixSeconds mtime =
      0;  // the file's modification time (standard input: that of the pipe or file)
};

// Reads `path` once, start to end, in 1 MiB reads, and hands its decoded bytes to `sink`. Holds at
// most one read buffer and libarchive's decoder state (a few hundred KiB), never a whole file.
// Errors: the file cannot be opened or read (kIo); compressed data that is damaged or cut short
// (kInvalidInput, naming the file, the encoding, how far it decoded and what to do), in which case
// the sink has seen a prefix only and the caller must discard what it made of it.
core::Result<DecodeInfo> decode_source(const std::string& path, const DecodedSink& sink);

// SHA-256 of a stream, in pieces; lower-case hex.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view bytes);
  std::string hex();  // finishes; the object then starts over
 private:
  void* ctx_;
};

// The SHA-256 of each member's decoded bytes (decode_source without a reader): a first pass that
// tells whether a file is loaded already before a transaction is opened.
core::Result<std::vector<std::string>> member_digests(const std::string& path);

// The identity of a delivery: the SHA-256 of its decoded bytes when it has one member (so a plain
// CSV and its gzip, zstd or one-file zip copy are the same source, and its identity is what it
// was before compression was read), else the SHA-256 of "aicost-parts\n" and the members' hashes
// sorted, one a line (members in any order or under any names, one identity).
std::string delivery_identity(std::vector<std::string> member_sha256);

}  // namespace aicost::billing
