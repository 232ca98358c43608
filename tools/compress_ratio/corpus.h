// Seeded test corpora for the compression measurements (tools/compress_ratio): tensors drawn like
// real training state and text in the format of real training logs. The same seed and size give
// the same bytes on every platform (core::Rng writes its distributions out).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aicost::tools {

// What is compressed; each kind is documented where it is made (corpus.cc) and in
// data/compression.yaml.
enum class Content {
  kBf16Weights,    // bf16 weights, normal per tensor, a per-tensor scale
  kFp32Optimizer,  // fp32 master weights, Adam first and second moments
  kCheckpoint,     // the 14 B/param mix of a mixed-precision Adam checkpoint, tensor by tensor
  kTrainingLog,    // Megatron-LM rank-0 stdout with NCCL INFO lines (synthetic, real format)
  kMetricsJsonl,   // one JSON object of step metrics per line
};

const char* to_string(Content c);
// nullptr-free: false when `name` is not a content's name.
bool content_from_string(const std::string& name, Content& out);
const std::vector<Content>& all_contents();

// `bytes` bytes (rounded down to whole elements or lines) of `content` from `seed`.
std::vector<uint8_t> make_corpus(Content content, size_t bytes, uint64_t seed);

}  // namespace aicost::tools
