// libFuzzer target for the whole ledger path on a fuzzed file: bytes -> a reader -> a fresh SQLite
// ledger -> reports over a few groupings and a governance check with a small fixed budget set ->
// every output format of the report module. Nothing may crash, throw or break these invariants:
//   - what the ledger totals per currency equals what the reader handed over (money is exact);
//   - every text the reports carry is clean UTF-8 (the readers' byte policy, src/billing/guard.h);
//   - every JSON output parses.
//
// The first byte picks the format (kFormats, by its value modulo their count, kAuto included); the
// rest is the file. Each input gets a fresh ledger in a private folder (on /dev/shm when there is
// one: SQLite syncs every commit), emptied before the next input.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "aicost/billing/ingest.h"
#include "aicost/billing/reader.h"
#include "aicost/core/text.h"
#include "aicost/governance/check.h"
#include "aicost/ledger/rate_card.h"
#include "aicost/ledger/report.h"
#include "aicost/report/governance_report.h"
#include "aicost/report/ledger_report.h"
#include "aicost/store/open.h"

namespace {

namespace fs = std::filesystem;
using namespace aicost;

[[noreturn]] void broken(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_ledger: invariant broken (%s): %s\n", what, detail.c_str());
  __builtin_trap();
}

// scripts/fuzz.sh's ledger_formats lists these in the same order.
constexpr billing::Format kFormats[] = {
    billing::Format::kAuto,
    billing::Format::kFocus,
    billing::Format::kAwsCur,
    billing::Format::kAzure,
    billing::Format::kGcp,
    billing::Format::kOci,
    billing::Format::kDcgmPrometheus,
    billing::Format::kDcgmCsv,
    billing::Format::kOpenCost,
    billing::Format::kOcp,
};

// Prices usage without a bill (OpenShift, Slurm through auto): CPU, memory, storage (one class
// priced apart), untyped GPUs and two GPU types. Rows it cannot price make the ingest refuse the
// file, which the fuzzer then leaves.
const ledger::RateCard& rate_card() {
  static const ledger::RateCard card = [] {
    ledger::RateCard c;
    c.source = "fuzz";
    c.currency = "USD";
    c.cpu = ledger::RateCard::Rate{31'611'000, "fuzz:1", "rate card"};
    c.memory = ledger::RateCard::Rate{4'237'000, "fuzz:2", "rate card"};
    c.storage_classes["gp2"] = ledger::RateCard::Rate{107'374'182, "fuzz:3", "rate card"};
    c.storage_classes[""] = ledger::RateCard::Rate{40'000'000, "fuzz:4", "rate card"};
    c.untyped = ledger::RateCard::Rate{950'000'000, "fuzz:5", "rate card"};
    c.gpus["tesla t4"] = c.gpus["h100"] =
        ledger::RateCard::Rate{2'100'000'000, "fuzz:6", "rate card"};
    return c;
  }();
  return card;
}

// The private folder every input's ledger lives in: aicost-fuzz-<pid>, made once per process and
// removed at exit. A run that crashed cannot remove its own, so each run first removes those of
// processes that are gone.
class Scratch {
 public:
  Scratch() {
    const fs::path base =
        fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(base, ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind(kPrefix, 0) != 0) continue;
      char* end = nullptr;
      const long pid = std::strtol(name.c_str() + kPrefix.size(), &end, 10);
      if (pid > 0 && *end == '\0' && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
        fs::remove_all(e.path(), ec);
    }
    dir_ = base / (std::string(kPrefix) + std::to_string(::getpid()));
    fs::remove_all(dir_, ec);
    if (!fs::create_directory(dir_, ec)) broken("cannot make the scratch folder", dir_.string());
    fs::permissions(dir_, fs::perms::owner_all, ec);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const fs::path& dir() const { return dir_; }
  // Empties the folder for the next input.
  void reset() const {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec)) fs::remove_all(e.path(), ec);
  }

 private:
  static constexpr std::string_view kPrefix = "aicost-fuzz-";
  fs::path dir_;
};

const Scratch& scratch() {
  static const Scratch s;
  return s;
}

void check_clean(const std::string& where, const std::string& text) {
  if (!core::utf8_clean(text)) broken("text is not clean UTF-8", where + ": " + text.substr(0, 80));
}

void render_all(const std::string& where, const auto& render) {
  for (auto f : {report::Format::kTable, report::Format::kJson, report::Format::kCsv,
                 report::Format::kMarkdown}) {
    const std::string out = render(f);
    if (f == report::Format::kJson && nlohmann::json::parse(out, nullptr, false).is_discarded())
      broken("JSON output does not parse", where + ": " + out.substr(0, 200));
  }
}

std::vector<governance::Budget> budgets() {
  governance::Budget all;
  all.name = "all";
  all.amount = core::WideNanos{100} * core::kNanosPerUnit;
  all.currency = "USD";
  all.source = "fuzz:1";
  governance::Budget team = all;
  team.name = "team-ml";
  team.parent = "all";
  team.amount = core::WideNanos{10} * core::kNanosPerUnit;
  team.scope = {{{ledger::Dimension::kTag, "team"}, "ml"}};
  team.source = "fuzz:2";
  governance::Budget run = all;
  run.name = "run";
  run.period = governance::PeriodKind::kRun;
  run.start = ledger::days_from_civil(2024, 9, 1);
  run.end = ledger::days_from_civil(2024, 10, 15);
  run.currency = "EUR";
  run.source = "fuzz:3";
  auto resolved = governance::resolve_hierarchy({all, team, run});
  if (!resolved) broken("the fixed budgets do not resolve", resolved.error().what());
  return *resolved;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const billing::Format format = kFormats[data[0] % std::size(kFormats)];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);

  const auto& dir = scratch();
  dir.reset();
  const std::string path = (dir.dir() / "export.csv").string();
  std::ofstream(path, std::ios::binary)
      .write(text.data(), static_cast<std::streamsize>(text.size()));

  // What the reader hands over, per currency: the ledger must hold exactly this.
  std::map<std::string, core::WideNanos> handed;
  billing::Sink sink;
  sink.charge = [&](ledger::Charge&& c) {
    // As the ingest does: a row priced beyond what the ledger holds is refused.
    if (ledger::needs_price(c) && !ledger::price_usage(c, rate_card())) return core::Status{};
    for (const auto* s : {&c.currency, &c.service_name, &c.resource_id, &c.charge_description})
      check_clean("charge", *s);
    for (const auto& t : c.tags) check_clean("tag", t.key + t.value);
    handed[c.currency] += c.billed;
    return core::Status{};
  };
  sink.sample = [](ledger::GpuSample&&) { return core::Status{}; };
  sink.issue = [](ledger::RowIssue&& i) { check_clean("issue", i.column + i.message); };
  if (!billing::read_text(text, path, format, sink)) return 0;

  auto store = store::open_store((dir.dir() / "ledger.db").string(),
                                 {.mode = store::OpenMode::kCreate, .scan_threads = 1});
  if (!store) broken("a fresh ledger does not open", store.error().what());
  billing::IngestOptions options;
  options.format = format;
  options.rate_card = &rate_card();
  auto ingest = billing::ingest_file(**store, path, options);
  if (!ingest) return 0;  // e.g. a day's sum beyond what the ledger holds: an error, not a crash
  render_all("ingest", [&](report::Format f) { return report::render_ingest(path, *ingest, f); });

  auto sources = (*store)->sources();
  if (!sources) broken("sources", sources.error().what());
  render_all("sources", [&](report::Format f) { return report::render_sources(*sources, f); });

  std::vector<ledger::ReportRequest> requests(4);
  requests[1].by = {{ledger::Dimension::kService, ""}, {ledger::Dimension::kTag, "team"}};
  requests[1].granularity = ledger::Granularity::kDay;
  requests[2].by = {{ledger::Dimension::kResource, ""}};
  requests[2].top = 3;
  requests[3].by = {{ledger::Dimension::kCurrency, ""}, {ledger::Dimension::kRegion, ""}};
  requests[3].granularity = ledger::Granularity::kMonth;
  for (std::size_t k = 0; k < requests.size(); ++k) {
    auto r = ledger::run_report(**store, requests[k]);
    if (!r) broken("run_report", r.error().what());
    for (const auto& line : r->lines)
      for (const auto& v : line.values) check_clean("report value", v);
    if (k == 0) {
      std::map<std::string, core::WideNanos> stored;
      for (const auto& t : r->totals) stored[t.currency] += t.sums.billed;
      for (auto it = handed.begin(); it != handed.end();)
        it = it->second == 0 ? handed.erase(it) : std::next(it);
      for (auto it = stored.begin(); it != stored.end();)
        it = it->second == 0 ? stored.erase(it) : std::next(it);
      if (stored != handed)
        broken(
            "the ledger's totals differ from what the reader handed over",
            std::to_string(stored.size()) + " vs " + std::to_string(handed.size()) + " currencies");
    }
    render_all("report", [&](report::Format f) { return report::render_ledger_report(*r, f); });
  }

  governance::CheckOptions check;
  check.as_of = ledger::days_from_civil(2024, 10, 1);
  auto result = governance::run_check(**store, budgets(), check, {});
  if (!result) return 0;  // a check may refuse a ledger (an error value); it must not crash
  render_all("check", [&](report::Format f) { return report::render_check(*result, f); });
  return 0;
}
