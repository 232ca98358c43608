#include "aicost/billing/ingest.h"

#include <openssl/evp.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <span>

namespace aicost::billing {
namespace {

// Test hook for the crash test (tests/unit/billing/crash_test.cc): SIGKILL ourselves once this
// many rows have gone to the store, inside the open transaction.
std::int64_t kill_after_rows() {
  const char* v = std::getenv("AICOST_TEST_KILL_AFTER_ROWS");
  return v ? std::atoll(v) : -1;
}

std::string absolute(const std::string& path) {
  std::error_code ec;
  auto p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? path : p.string();
}

}  // namespace

core::Result<std::string> sha256_file(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return core::make_error(core::ErrorCode::kIo, "cannot open the file", path);
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    return core::make_error(core::ErrorCode::kInternal, "SHA-256 is unavailable");
  std::vector<unsigned char> buffer(1 << 20);
  for (;;) {
    const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), f.get());
    if (n > 0) EVP_DigestUpdate(ctx.get(), buffer.data(), n);
    if (n < buffer.size()) {
      if (std::ferror(f.get())) return core::make_error(core::ErrorCode::kIo, "read error", path);
      break;
    }
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &len);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 15]);
  }
  return out;
}

core::Result<IngestResult> ingest_file(ledger::Store& store, const std::string& path, const IngestOptions& options) {
  auto sha = sha256_file(path);
  if (!sha) return sha.error();
  IngestResult result;
  auto existing = store.find_source(*sha);
  if (!existing) return existing.error();
  if (*existing) {
    result.outcome = IngestResult::Outcome::kAlreadyLoaded;
    result.record = **existing;
    return result;
  }
  ledger::SourceFile file{absolute(path), *sha, 0, ""};
  std::error_code ec;
  file.bytes = static_cast<std::int64_t>(std::filesystem::file_size(path, ec));
  auto earlier = store.sources_at(file.path);
  if (!earlier) return earlier.error();
  if (!earlier->empty()) {
    if (!options.replace) {
      const auto& e = earlier->front();
      return core::make_error(core::ErrorCode::kInvalidInput,
                              "this path was loaded before with other content (source #" + std::to_string(e.id) +
                                  ", " + std::to_string(e.rows) + " rows, " + e.loaded_at +
                                  "); pass --replace to swap the new content in, in one transaction",
                              path);
    }
    for (const auto& e : *earlier) result.replaced.push_back(e.id);
    result.outcome = IngestResult::Outcome::kReplaced;
  }

  // The checks above were made without the write lock; begin_source makes them again under it,
  // so two ingests of one file at once end as one after the other would: one loads, the other
  // finds it loaded.
  auto begun = store.begin_source(file, result.replaced);
  if (!begun) return begun.error();
  if (*begun) {
    result = {};
    result.outcome = IngestResult::Outcome::kAlreadyLoaded;
    result.record = **begun;
    return result;
  }
  std::vector<ledger::Charge> charges;
  std::vector<ledger::GpuSample> samples;
  std::vector<ledger::ContractCommitment> commitments;
  std::vector<ledger::RowIssue> issues;
  charges.reserve(options.batch);
  const std::int64_t kill_at = kill_after_rows();
  std::int64_t sent = 0;
  // Charges live in `charges[0, used)`; slots are swapped with the reader's row, so the reader
  // writes the next row into strings that already have capacity (no allocation per field).
  std::size_t used = 0;
  auto flush = [&]() -> core::Status {
    if (used > 0) {
      if (auto s = store.add_charges(std::span<const ledger::Charge>(charges.data(), used)); !s) return s;
      sent += static_cast<std::int64_t>(used);
      used = 0;
    }
    if (!samples.empty()) {
      if (auto s = store.add_samples(samples); !s) return s;
      sent += static_cast<std::int64_t>(samples.size());
      samples.clear();
    }
    if (!commitments.empty()) {
      if (auto s = store.add_commitments(commitments); !s) return s;
      sent += static_cast<std::int64_t>(commitments.size());
      commitments.clear();
    }
    if (kill_at >= 0 && sent >= kill_at) std::raise(SIGKILL);
    return {};
  };
  std::set<std::string> unpriced;  // GPU types the rate card lacks
  Sink sink;
  sink.charge = [&](ledger::Charge&& c) -> core::Status {
    if (ledger::needs_price(c)) {
      if (!options.rate_card)
        return core::make_error(core::ErrorCode::kInvalidInput,
                                "this is GPU usage without prices (" + c.provider +
                                    "); give a rate card with --rate-card FILE (docs/LEDGER.md, \"Usage without a "
                                    "bill\")",
                                path);
      if (!ledger::price_usage(c, *options.rate_card)) {
        unpriced.insert(c.sku_id);
        return {};
      }
    }
    if (used < charges.size()) std::swap(charges[used], c);
    else charges.push_back(std::move(c));
    return ++used >= options.batch ? flush() : core::Status{};
  };
  sink.sample = [&](ledger::GpuSample&& g) -> core::Status {
    samples.push_back(std::move(g));
    return samples.size() >= options.batch ? flush() : core::Status{};
  };
  sink.commitment = [&](ledger::ContractCommitment&& c) -> core::Status {
    commitments.push_back(std::move(c));
    return commitments.size() >= options.batch ? flush() : core::Status{};
  };
  sink.issue = [&](ledger::RowIssue&& i) { issues.push_back(std::move(i)); };

  auto summary = read_file(path, options.format, sink);
  core::Status s = summary ? flush() : core::Status(summary.error());
  if (s && !unpriced.empty())
    s = core::make_error(core::ErrorCode::kInvalidInput, ledger::unpriced_message(unpriced, *options.rate_card), path);
  if (s) s = store.add_issues(issues);
  if (!s) {
    store.rollback();
    return s.error();
  }
  result.summary = *summary;
  auto record = store.commit_source(summary->version, summary->rejected);
  if (!record) return record.error().with_context(path);
  result.record = *record;
  result.issue_count = static_cast<std::int64_t>(issues.size());
  issues.resize(std::min(issues.size(), options.keep_issues));
  result.issues = std::move(issues);
  return result;
}

core::Result<Validation> validate_file(const std::string& path, Format format) {
  Validation v;
  Sink sink;
  sink.charge = [](ledger::Charge&&) { return core::Status{}; };
  sink.sample = [](ledger::GpuSample&&) { return core::Status{}; };
  sink.commitment = [](ledger::ContractCommitment&&) { return core::Status{}; };
  sink.issue = [&](ledger::RowIssue&& i) { v.issues.push_back(std::move(i)); };
  auto summary = read_file(path, format, sink);
  if (!summary) return summary.error();
  v.summary = *summary;
  return v;
}

}  // namespace aicost::billing
