// Numeric precisions of tensor-core math and of stored tensors.
#pragma once

#include <optional>
#include <string_view>

namespace aicost::catalog {

enum class Precision { kFp32, kTf32, kBf16, kFp16, kFp8, kInt8, kFp4 };
inline constexpr int kPrecisionCount = 7;

const char* to_string(Precision p);
// Accepts "bf16", "fp16", "fp8", ... (case-insensitive); nullopt when unknown.
std::optional<Precision> precision_from_string(std::string_view name);
// Bytes per element when a tensor is stored at this precision.
double bytes_per_element(Precision p);

}  // namespace aicost::catalog
