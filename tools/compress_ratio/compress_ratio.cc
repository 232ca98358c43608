// aicost_compress_ratio: measures what zstd makes of training state and training logs, the
// figures data/compression.yaml records (docs/OPTIMIZE.md, checkpoint-, log- and
// egress-compression). For each content and level it draws a seeded corpus (corpus.h), compresses
// it in independent chunks on one core (as separate checkpoint shards or log files are), checks
// the round trip and prints one CSV row:
//   content,level,bytes,ratio,compress_MB_per_s,decompress_MB_per_s
// ratio = compressed / original bytes; speeds are per core, the best of --repeat runs (MB = 1e6 B).
//
//   aicost_compress_ratio --content all --levels 1,3,9 --bytes 256MiB --seed 1 --repeat 3
//
// Exit codes: 0 ok, 2 bad arguments, 1 a round trip that does not give the input back.
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "aicost/core/units.h"
#include "corpus.h"

namespace {

using aicost::tools::Content;

struct Options {
  std::vector<Content> contents;
  std::vector<int> levels = {3};
  size_t bytes = size_t{64} << 20;
  size_t chunk = size_t{64} << 20;
  uint64_t seed = 1;
  int repeat = 1;
};

int usage(const char* why) {
  std::fprintf(stderr,
               "aicost_compress_ratio: %s\n"
               "usage: aicost_compress_ratio --content NAME|all [--levels 1,3,9] [--bytes 256MiB]\n"
               "       [--chunk 64MiB] [--seed 1] [--repeat 3]\n"
               "contents: bf16-weights fp32-optimizer checkpoint training-log metrics-jsonl\n",
               why);
  return 2;
}

bool parse_size(const char* text, size_t& out) {
  auto b = aicost::core::parse_bytes(text);
  if (!b || b->value() < 1) return false;
  out = static_cast<size_t>(b->value());
  return true;
}

struct Measurement {
  double ratio = 0, compress_mb_s = 0, decompress_mb_s = 0;
  bool round_trip = true;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Measurement measure(const std::vector<uint8_t>& in, int level, size_t chunk, int repeat) {
  Measurement m;
  std::vector<std::vector<uint8_t>> packed;
  double best_c = 1e300, best_d = 1e300;
  for (int r = 0; r < repeat; ++r) {
    packed.clear();
    size_t total = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (size_t off = 0; off < in.size(); off += chunk) {
      const size_t n = std::min(chunk, in.size() - off);
      std::vector<uint8_t> out(ZSTD_compressBound(n));
      const size_t z = ZSTD_compress(out.data(), out.size(), in.data() + off, n, level);
      if (ZSTD_isError(z)) {
        m.round_trip = false;
        return m;
      }
      out.resize(z);
      total += z;
      packed.push_back(std::move(out));
    }
    best_c = std::min(best_c, seconds_since(t0));
    m.ratio = static_cast<double>(total) / static_cast<double>(in.size());
    std::vector<uint8_t> back(std::min(chunk, in.size()));
    t0 = std::chrono::steady_clock::now();
    size_t off = 0;
    for (const auto& p : packed) {
      const size_t n = std::min(chunk, in.size() - off);
      const size_t d = ZSTD_decompress(back.data(), n, p.data(), p.size());
      if (ZSTD_isError(d) || d != n ||
          !std::equal(back.begin(), back.begin() + n, in.begin() + off)) {
        m.round_trip = false;
      }
      off += n;
    }
    best_d = std::min(best_d, seconds_since(t0));
  }
  m.compress_mb_s = static_cast<double>(in.size()) / 1e6 / best_c;
  m.decompress_mb_s = static_cast<double>(in.size()) / 1e6 / best_d;
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage(("missing value after " + a).c_str());
    const char* v = argv[++i];
    if (a == "--content") {
      if (std::string(v) == "all") {
        o.contents = aicost::tools::all_contents();
      } else {
        Content c;
        if (!aicost::tools::content_from_string(v, c)) return usage("unknown content");
        o.contents.push_back(c);
      }
    } else if (a == "--levels") {
      o.levels.clear();
      for (std::string s = v; !s.empty();) {
        const size_t comma = s.find(',');
        const int level = std::atoi(s.substr(0, comma).c_str());
        if (level < 1 || level > ZSTD_maxCLevel()) return usage("a level is 1 .. 22");
        o.levels.push_back(level);
        s = comma == std::string::npos ? "" : s.substr(comma + 1);
      }
    } else if (a == "--bytes") {
      if (!parse_size(v, o.bytes)) return usage("--bytes needs a size such as 256MiB");
    } else if (a == "--chunk") {
      if (!parse_size(v, o.chunk)) return usage("--chunk needs a size such as 64MiB");
    } else if (a == "--seed") {
      o.seed = std::strtoull(v, nullptr, 10);
    } else if (a == "--repeat") {
      o.repeat = std::max(1, std::atoi(v));
    } else {
      return usage(("unknown option " + a).c_str());
    }
  }
  if (o.contents.empty()) return usage("give --content");
  std::printf("content,level,bytes,ratio,compress_MB_per_s,decompress_MB_per_s\n");
  int rc = 0;
  for (Content c : o.contents) {
    const auto corpus = aicost::tools::make_corpus(c, o.bytes, o.seed);
    for (int level : o.levels) {
      const Measurement m = measure(corpus, level, o.chunk, o.repeat);
      if (!m.round_trip) {
        std::fprintf(stderr, "aicost_compress_ratio: %s at level %d does not round-trip\n",
                     aicost::tools::to_string(c), level);
        rc = 1;
      }
      std::printf("%s,%d,%zu,%.4f,%.1f,%.1f\n", aicost::tools::to_string(c), level, corpus.size(),
                  m.ratio, m.compress_mb_s, m.decompress_mb_s);
      std::fflush(stdout);
    }
  }
  return rc;
}
