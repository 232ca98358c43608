// libFuzzer target for billing::read_text on one Format, chosen at compile time by
// AICOST_FUZZ_FORMAT (kFocus, kAwsCur, ..., kAuto; fuzz/CMakeLists.txt builds one binary each).
//
// Besides what ASan/UBSan catch, it checks the contract of include/aicost/billing/reader.h and
// traps when it is broken:
//   - read_text does not throw (no try/catch here: an exception escaping is a crash on purpose);
//   - summary.loaded + summary.rejected <= summary.records;
//   - summary.loaded equals the charges and samples the sink received ("handed to the sink");
//   - summary.rejected <= the error issues ("rejected: each has an error issue");
//   - every Charge handed to the sink has a non-empty currency.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "aicost/billing/reader.h"

#ifndef AICOST_FUZZ_FORMAT
#error "define AICOST_FUZZ_FORMAT to a billing::Format enumerator (kFocus, kAwsCur, ..., kAuto)"
#endif

namespace {

using aicost::billing::Format;

constexpr Format kFormat = Format::AICOST_FUZZ_FORMAT;

// Says which invariant broke (the line libFuzzer's crash report shows), then traps.
[[noreturn]] void broken(const char* what, long long a, long long b) {
  std::fprintf(stderr, "fuzz_reader: invariant broken (%s): %lld vs %lld\n", what, a, b);
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  std::int64_t charges = 0, samples = 0, errors = 0;
  aicost::billing::Sink sink;
  sink.charge = [&](aicost::ledger::Charge&& c) -> aicost::core::Status {
    if (c.currency.empty()) broken("a Charge with an empty currency, at line", c.line, 0);
    ++charges;
    return {};
  };
  sink.sample = [&](aicost::ledger::GpuSample&&) -> aicost::core::Status {
    ++samples;
    return {};
  };
  sink.issue = [&](aicost::ledger::RowIssue&& issue) {
    if (issue.severity == aicost::ledger::RowIssue::Severity::kError) ++errors;
  };

  const auto result = aicost::billing::read_text(text, "fuzz-input", kFormat, sink);
  if (!result) return 0;  // the whole file is unreadable: a value, not a failure
  const auto& s = *result;
  if (s.records < 0 || s.loaded < 0 || s.rejected < 0)
    broken("negative counts: records, loaded", s.records, s.loaded);
  if (s.loaded + s.rejected > s.records)
    broken("loaded + rejected <= records", s.loaded + s.rejected, s.records);
  if (s.loaded != charges + samples)
    broken("loaded == charges + samples handed to the sink", s.loaded, charges + samples);
  if (s.rejected > errors) broken("rejected <= error issues", s.rejected, errors);
  return 0;
}
