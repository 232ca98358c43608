// libFuzzer target for billing::read_text on one Format, chosen at compile time by
// AICOST_FUZZ_FORMAT (kFocus, kAwsCur, ..., kAuto; fuzz/CMakeLists.txt builds one binary each).
//
// Besides what ASan/UBSan catch, it checks the contract of include/aicost/billing/reader.h and
// traps when it is broken:
//   - read_text does not throw (no try/catch here: an exception escaping is a crash on purpose);
//   - summary.loaded + summary.rejected <= summary.records (Slurm, OpenShift: rejected <= records,
//   since
//     one job line becomes a row per day, node and GPU type, one pod line a CPU and a memory row);
//   - summary.loaded equals the charges and samples the sink received ("handed to the sink");
//   - summary.rejected <= the error issues ("rejected: each has an error issue");
//   - every Charge handed to the sink has a non-empty currency, but unpriced usage (GPU-hours
//     without a currency, ledger::needs_price: Slurm, OpenShift), which the ingest prices or
//     refuses;
//   - every text handed over (charge fields, tags, sample labels, issues) is clean UTF-8 without
//     NUL: the byte policy of src/billing/guard.h, so nothing invalid can reach a store.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "aicost/billing/reader.h"
#include "aicost/core/text.h"
#include "aicost/ledger/rate_card.h"

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

void check_clean(const char* what, const std::string& s, long long line) {
  if (!aicost::core::utf8_clean(s)) {
    std::fprintf(stderr, "fuzz_reader: %s is not clean UTF-8 at line %lld\n", what, line);
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  std::int64_t charges = 0, samples = 0, errors = 0;
  aicost::billing::Sink sink;
  sink.charge = [&](aicost::ledger::Charge&& c) -> aicost::core::Status {
    if (c.currency.empty() && !aicost::ledger::needs_price(c))
      broken("a Charge with an empty currency and no GPU-hours to price, at line", c.line, 0);
    for (const std::string* f : aicost::ledger::text_fields(c))
      check_clean("a charge field", *f, c.line);
    for (const auto& t : c.tags) check_clean("a tag", t.key + t.value, c.line);
    ++charges;
    return {};
  };
  sink.sample = [&](aicost::ledger::GpuSample&& g) -> aicost::core::Status {
    for (const std::string* f :
         {&g.host, &g.gpu, &g.uuid, &g.model_name, &g.ns, &g.pod, &g.container, &g.job})
      check_clean("a sample label", *f, g.line);
    ++samples;
    return {};
  };
  sink.issue = [&](aicost::ledger::RowIssue&& issue) {
    check_clean("an issue", issue.column + issue.message, issue.line);
    if (issue.severity == aicost::ledger::RowIssue::Severity::kError) ++errors;
  };

  const auto result = aicost::billing::read_text(text, "fuzz-input", kFormat, sink);
  if (!result) return 0;  // the whole file is unreadable: a value, not a failure
  const auto& s = *result;
  if (s.records < 0 || s.loaded < 0 || s.rejected < 0)
    broken("negative counts: records, loaded", s.records, s.loaded);
  // A Slurm job line is a row per day, node and GPU type; an OpenShift pod line a CPU and a memory
  // row.
  const bool rows_per_line =
      s.format == aicost::billing::Format::kSlurm || s.format == aicost::billing::Format::kOcp;
  if ((rows_per_line ? s.rejected : s.loaded + s.rejected) > s.records)
    broken("loaded + rejected <= records", s.loaded + s.rejected, s.records);
  if (s.loaded != charges + samples)
    broken("loaded == charges + samples handed to the sink", s.loaded, charges + samples);
  if (s.rejected > errors) broken("rejected <= error issues", s.rejected, errors);
  return 0;
}
