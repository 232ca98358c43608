#include "signatures.h"

#include <algorithm>
#include <array>

namespace aicost::billing {
namespace {

// Files no reader reads, told by their first bytes (each format's magic number), and what to do
// instead. Reading them is planned (issue 11); until then a clear refusal beats "name the format".
struct Signature {
  std::string_view magic;
  const char* what;
  const char* todo;     // FILE stands for the path
  const char* planned;  // what reading them would be
};
constexpr std::array kSignatures{
    // A plain file never starts so (source.cc decodes these); a member of a zip or the content
    // of a gzip file may.
    Signature{"\x1F\x8B", "a gzip-compressed file inside a compressed file",
              "unpack the outer file and load the inner one", ""},
    Signature{"\x28\xB5\x2F\xFD", "a zstd-compressed file inside a compressed file",
              "unpack the outer file and load the inner one", ""},
    Signature{"BZh", "a bzip2-compressed file inside a compressed file",
              "unpack the outer file and load the inner one", ""},
    Signature{"\xFD"
              "7zXZ",
              "an xz-compressed file inside a compressed file",
              "unpack the outer file and load the inner one", ""},
    Signature{"PK\x03\x04", "a zip archive inside a compressed file",
              "unpack the outer file and load the zip", ""},
    Signature{"PK\x05\x06", "an empty zip archive", "export the data again", ""},
    // A Parquet file is read from a plain file (read_file); this is one met in a stream, in memory
    // or inside an archive.
    Signature{
        "PAR1", "a Parquet file",
        "save it to a file and load that (Parquet is read from a file, which can be seeked in)",
        "Parquet from a stream"},
    Signature{std::string_view("\xFF\xFE\0\0", 4), "UTF-32 (little-endian) text",
              "convert it to UTF-8 first (iconv -f UTF-32 -t UTF-8 FILE > FILE.utf8.csv)",
              "UTF-32"},
    Signature{"\xFF\xFE", "UTF-16 (little-endian) text",
              "convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8.csv)",
              "UTF-16"},
    Signature{"\xFE\xFF", "UTF-16 (big-endian) text",
              "convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8.csv)",
              "UTF-16"},
};

// UTF-16 without a byte-order mark: ASCII text with a NUL after (LE) or before (BE) every byte.
const char* utf16_without_bom(std::string_view head) {
  const std::size_t n = std::min<std::size_t>(head.size(), 256) & ~std::size_t{1};
  if (n < 4) return nullptr;
  std::size_t even = 0, odd = 0;
  for (std::size_t i = 0; i < n; ++i) (i % 2 ? odd : even) += head[i] == '\0';
  const std::size_t pairs = n / 2;
  if (odd * 10 >= pairs * 9 && even * 10 <= pairs) return "LE";
  if (even * 10 >= pairs * 9 && odd * 10 <= pairs) return "BE";
  return nullptr;
}

std::string replace_file(std::string text, const std::string& path) {
  for (std::size_t at = text.find("FILE"); at != std::string::npos;
       at = text.find("FILE", at + path.size()))
    text.replace(at, 4, path);
  return text;
}

}  // namespace

std::optional<std::string> not_text(std::string_view head, const std::string& path) {
  for (const auto& sig : kSignatures) {
    if (head.substr(0, sig.magic.size()) != sig.magic) continue;
    if (sig.magic == "BZh" && (head.size() < 4 || head[3] < '1' || head[3] > '9')) continue;
    std::string out = std::string("this is ") + sig.what + "; " + replace_file(sig.todo, path);
    if (*sig.planned) out += std::string("; reading ") + sig.planned + " is planned";
    return out;
  }
  if (const char* order = utf16_without_bom(head))
    return std::string("this is UTF-16 (") + (order[0] == 'L' ? "little" : "big") +
           "-endian) text without a byte-order mark; convert it to UTF-8 first (iconv -f UTF-16" +
           order + " -t UTF-8 " + path + " > " + path + ".utf8.csv); reading UTF-16 is planned";
  return std::nullopt;
}

}  // namespace aicost::billing
