#include "aicost/billing/ingest.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <span>
#include <utility>

#include "aicost/core/cores.h"
#include "delivery.h"
#include "export_key.h"
#include "ocp_common.h"
#include "write_behind.h"

namespace aicost::billing {
namespace {

// Charge buffers with a writer thread: the reader may run this many less one ahead of the store.
constexpr std::size_t kWriteBuffers = 3;

// Test hook for the crash test (tests/unit/billing/crash_test.cc): SIGKILL ourselves once this
// many rows have gone to the store, inside the open transaction.
std::int64_t kill_after_rows() {
  const char* v = std::getenv("AICOST_TEST_KILL_AFTER_ROWS");
  return v ? std::atoll(v) : -1;
}

}  // namespace

core::Result<std::string> sha256_file(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return core::make_error(core::ErrorCode::kIo, "cannot open the file", path);
  Sha256 sha;
  std::vector<char> buffer(1 << 20);
  for (;;) {
    const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), f.get());
    if (n > 0) sha.update(std::string_view(buffer.data(), n));
    if (n < buffer.size()) {
      if (std::ferror(f.get())) return core::make_error(core::ErrorCode::kIo, "read error", path);
      break;
    }
  }
  return sha.hex();
}

namespace {

// A provisional identity for a stream hashed while it loads: unique, and never a SHA-256.
std::string provisional_identity() {
  static std::atomic<int> n{0};
  return "pending-" + std::to_string(::getpid()) + "-" + std::to_string(std::time(nullptr)) + "-" +
         std::to_string(n++);
}

std::string iso_day(ledger::UnixSeconds t) { return ledger::day_text(ledger::day_of(t)); }

// The column a usage row's quantity to price came from, for the error that refuses it: the
// readers of usage without a bill (slurm.cc, ocp.cc, ocp_gpu.cc) by the rows they make.
std::string_view quantity_column(const ledger::Charge& c) {
  if (c.provider == ExportKey::kOpenShift) {
    if (c.gpu_hours > 0) return "gpu_pod_uptime";
    if (c.pricing_unit == ledger::kCoreHours) return "pod_usage_cpu_core_seconds";
    if (c.pricing_unit == ledger::kGibHours) return "pod_usage_memory_byte_seconds";
    if (c.pricing_unit == ledger::kGibMonths) return "persistentvolumeclaim_capacity_byte_seconds";
    if (c.pricing_unit == ledger::kVmHours) return "vm_uptime_total_seconds";
  }
  return c.gpu_hours > 0 ? "AllocTRES" : "";
}

// The reader's format family ("focus-1.2" -> "focus"): an export keeps its key across versions.
// OpenShift's reports are one export ("ocp-pod", "ocp-storage" -> "ocp").
std::string family(const std::string& version) {
  if (version.rfind("focus", 0) == 0) return "focus";
  if (version.rfind("ocp", 0) == 0) return "ocp";
  return version;
}

}  // namespace

core::Result<IngestResult> ingest_file(ledger::Store& store, const std::string& path,
                                       const IngestOptions& options) {
  auto delivery = resolve_delivery(path);
  if (!delivery) return delivery.error();
  const Delivery& d = *delivery;
  const bool restate = options.restate || d.whole_periods;
  const std::string export_name = options.export_name.empty() ? d.export_name : options.export_name;
  // A file is read twice (hashed, then loaded) so that a loaded one costs no transaction; a pipe
  // or standard input once, hashed as it loads.
  bool rereadable = true;
  std::int64_t bytes = 0;
  for (const auto& part : d.parts) {
    struct stat st {};
    if (is_stdin(part) || ::stat(part.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      rereadable = false;
    else
      bytes += st.st_size;
  }
  IngestResult result;
  result.parts = d.parts.size();
  std::string sha = provisional_identity();
  if (rereadable) {
    std::vector<std::string> members;
    for (const auto& part : d.parts) {
      auto m = member_digests(part);
      if (!m) return m.error();
      members.insert(members.end(), m->begin(), m->end());
    }
    sha = delivery_identity(std::move(members));
    auto existing = store.find_source(sha);
    if (!existing) return existing.error();
    if (*existing) {
      result.outcome = IngestResult::Outcome::kAlreadyLoaded;
      result.record = **existing;
      return result;
    }
  }
  ledger::SourceFile file{d.path, sha, bytes, ""};
  // Standard input has no path: sources read from it are never compared by path.
  if (d.path != kStdinName) {
    auto earlier = store.sources_at(file.path);
    if (!earlier) return earlier.error();
    if (!earlier->empty()) {
      // A delivery at a path loaded before is the provider's new delivery there (an export that
      // overwrites its files): it replaces the old one, as --replace does.
      if (!options.replace && !restate) {
        const auto& e = earlier->front();
        return core::make_error(
            core::ErrorCode::kInvalidInput,
            "this path was loaded before with other content (source #" + std::to_string(e.id) +
                ", " + std::to_string(e.rows) + " rows, " + e.loaded_at +
                "); pass --replace to swap the new content in, in one transaction",
            path);
      }
      for (const auto& e : *earlier) result.replaced.push_back(e.id);
      result.outcome = IngestResult::Outcome::kReplaced;
    }
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
  std::vector<ledger::GpuSample> samples;
  std::vector<ledger::ContractCommitment> commitments;
  std::vector<ledger::RowIssue> issues;
  const std::int64_t kill_at = kill_after_rows();
  std::int64_t sent = 0;  // rows gone to the store: the writer's own until it is waited for
  ExportKey key;
  // Charges live in `buffers[current][0, used)`; slots are swapped with the reader's row, so the
  // reader writes the next row into strings that already have capacity (no allocation per field).
  // With two cores the store writes a full buffer on the writer's thread while the reader fills
  // the next; a buffer is filled again once the store is done with it.
  const bool threaded = options.write_behind && core::usable_cores() > 1;
  std::vector<std::vector<ledger::Charge>> buffers(threaded ? kWriteBuffers : 1);
  for (auto& b : buffers) b.reserve(options.batch);
  std::size_t current = 0, used = 0;
  bool store_failed = false;     // a flush returned the writer's failure (the reader then stopped)
  WriteBehind writer(threaded);  // after the buffers: its destructor waits for the jobs
  auto flush = [&]() -> core::Status {
    const std::span<const ledger::Charge> rows(buffers[current].data(), used);
    if (used > 0) current = (current + 1) % buffers.size(), used = 0;
    auto job = [&store, &sent, kill_at, rows, samples = std::exchange(samples, {}),
                commitments = std::exchange(commitments, {})]() -> core::Status {
      if (!rows.empty()) {
        if (auto s = store.add_charges(rows); !s) return s;
        sent += static_cast<std::int64_t>(rows.size());
      }
      if (!samples.empty()) {
        if (auto s = store.add_samples(samples); !s) return s;
        sent += static_cast<std::int64_t>(samples.size());
      }
      if (!commitments.empty()) {
        if (auto s = store.add_commitments(commitments); !s) return s;
        sent += static_cast<std::int64_t>(commitments.size());
      }
      if (kill_at >= 0 && sent >= kill_at) std::raise(SIGKILL);
      return {};
    };
    auto s = writer.submit(std::move(job));
    if (s) s = writer.wait(buffers.size() - 1);  // the next buffer is free
    if (!s) store_failed = true;
    return s;
  };
  ledger::Unpriced unpriced;  // the rates the card lacks
  std::int64_t refused = 0;   // rows priced beyond what the ledger holds
  std::string part_name;      // prefixed to the issues of a part of several
  Sink sink;
  sink.context = make_delivery_context();
  sink.charge = [&](ledger::Charge&& c) -> core::Status {
    if (ledger::needs_price(c)) {
      if (!options.rate_card)
        return core::make_error(
            core::ErrorCode::kInvalidInput,
            std::string(c.gpu_hours > 0 ? "this is GPU usage" : "this is usage") +
                " without prices (" + c.provider +
                "); give a rate card with --rate-card FILE (docs/LEDGER.md, \"Usage without a "
                "bill\")",
            path);
      auto priced = ledger::price_usage(c, *options.rate_card);
      if (!priced) {  // an absurd quantity: the row is refused where it stands
        ledger::RowIssue i{c.line, std::string(quantity_column(c)),
                           ledger::RowIssue::Severity::kError, priced.error().message};
        if (!part_name.empty()) i.message = part_name + ": " + i.message;
        issues.push_back(std::move(i));
        ++refused;
        return {};
      }
      if (!*priced) {
        unpriced.add(c, *options.rate_card);
        return {};
      }
    }
    if (restate || c.provider == ExportKey::kOpenShift) key.add(c);
    auto& charges = buffers[current];
    if (used < charges.size())
      std::swap(charges[used], c);
    else
      charges.push_back(std::move(c));
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
  sink.issue = [&](ledger::RowIssue&& i) {
    if (!part_name.empty()) i.message = part_name + ": " + i.message;
    issues.push_back(std::move(i));
  };

  ReadSummary summary;
  std::vector<std::string> members;
  std::int64_t delivered = 0;
  core::Status s;
  bool only_labels = true;  // every part an OpenShift labels report
  const std::vector<std::string> parts =
      rereadable ? ocp::labels_first(d.parts, options.format) : d.parts;
  for (std::size_t k = 0; s && k < parts.size(); ++k) {
    if (parts.size() > 1) part_name = std::filesystem::path(parts[k]).filename().string();
    auto r = read_source(parts[k], k == 0 ? options.format : summary.format, sink, !rereadable);
    if (!r) {
      s = r.error();
      break;
    }
    const std::string& v = r->summary.version;
    if (v.size() < 7 || v.compare(v.size() - 7, 7, "-labels") != 0) only_labels = false;
    if (k == 0) {
      summary = r->summary;
      result.encoding = r->encoding;
    } else {
      // The version is that of the first part with rows (an OpenShift labels report has none).
      if (summary.loaded == 0 && r->summary.loaded > 0) summary.version = r->summary.version;
      summary.records += r->summary.records;
      summary.loaded += r->summary.loaded;
      summary.rejected += r->summary.rejected;
      summary.rounded += r->summary.rounded;
    }
    delivered += r->delivered_bytes;
    members.insert(members.end(), r->member_sha256.begin(), r->member_sha256.end());
  }
  if (s) s = flush();
  // The store's failure is of rows read before whatever stopped the reader: it is the one told.
  if (auto w = writer.wait(); !w && !store_failed) s = w;
  summary.rejected += refused;
  summary.loaded = std::max<std::int64_t>(0, summary.loaded - refused);
  if (s && only_labels && !parts.empty())
    s = core::make_error(
        core::ErrorCode::kInvalidInput,
        "this holds OpenShift node or namespace labels and no usage: the labels tag the pod, "
        "volume "
        "and GPU rows of the reports delivered with them; ingest the operator's upload as one (its "
        "folder, or its manifest.json)",
        path);
  if (s && !unpriced.empty())
    s = core::make_error(core::ErrorCode::kInvalidInput,
                         ledger::unpriced_message(unpriced, *options.rate_card), path);
  if (s) s = store.add_issues(issues);
  if (s && !rereadable) {
    auto loaded = store.settle_identity(delivery_identity(members), delivered);
    if (!loaded) {
      s = loaded.error();
    } else if (*loaded) {
      store.rollback();
      result = {};
      result.outcome = IngestResult::Outcome::kAlreadyLoaded;
      result.record = **loaded;
      return result;
    }
  }
  if (s && family(summary.version) == "ocp" && !key.slices.empty()) {
    // An OpenShift upload holds some hours of a month, not the month; the operator's daily reports
    // grow through the day and are sent again with every upload. A day sent again replaces that
    // day's rows of the same report from earlier uploads of the cluster (koku keeps the latest
    // file of each day and report: masu/external/kafka_msg_handler.py, divide_csv_daily).
    // Store::restate takes an OpenShift export's slices as "YYYY-MM-DD|<resource type>".
    result.periods = key.days();
    std::vector<std::string> slices;
    for (const auto& [day, type] : key.slices) slices.push_back(ledger::day_text(day) + "|" + type);
    auto changed = store.restate(key.text("ocp", export_name), slices);
    if (!changed) {
      s = changed.error().with_context(path);
    } else {
      result.restated = *changed;
      if (!changed->empty()) result.outcome = IngestResult::Outcome::kReplaced;
    }
  } else if (s && restate && !key.periods.empty()) {
    for (auto p : key.periods) result.periods.push_back(iso_day(p));
    auto gone = store.restate(key.text(family(summary.version), export_name), result.periods);
    if (!gone) {
      s = gone.error().with_context(path);
    } else {
      result.restated = *gone;
      result.replaced.insert(result.replaced.end(), gone->begin(), gone->end());
      if (!gone->empty()) result.outcome = IngestResult::Outcome::kReplaced;
    }
  }
  if (!s) {
    store.rollback();
    return s.error();
  }
  result.summary = summary;
  auto record = store.commit_source(summary.version, summary.rejected);
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
