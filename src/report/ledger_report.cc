#include "aicost/report/ledger_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>

#include "aicost/core/amount.h"
#include "aicost/core/text.h"
#include "aicost/report/charts.h"
#include "aicost/report/html.h"
#include "aicost/report/table.h"
#include "grouping.h"
#include "json.h"
#include "ledger_parts.h"

namespace aicost::report {

std::string render_compact(const std::string& db, const ledger::CompactResult& r, Format f) {
  if (f == Format::kJson)
    return json_text(Json{{"db", db},
                          {"bytes_before", r.bytes_before},
                          {"bytes_after", r.bytes_after},
                          {"how", r.how}}) +
           "\n";
  Table t;
  t.title = "Compacted " + db + " (" + r.how + ")";
  t.header = {"bytes_before", "bytes_after", "size_before", "size_after"};
  t.right_align = {true, true, true, true};
  t.rows.push_back({std::to_string(r.bytes_before), std::to_string(r.bytes_after),
                    core::format_bytes(static_cast<double>(r.bytes_before)),
                    core::format_bytes(static_cast<double>(r.bytes_after))});
  return render(t, f);
}

namespace {

// A nested JSON value as json_text writes it `depth` levels down: every line after the
// first indented by 2 * depth more spaces (the first follows its key, or is indented by the
// caller).
std::string nested(const Json& j, std::size_t depth) {
  const std::string text = json_text(j);
  const std::string pad(2 * depth, ' ');
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    out += c;
    if (c == '\n') out += pad;
  }
  return out;
}

// A ledger report written as its lines come (ledger::stream_report), byte for byte what
// render_ledger_report writes of the whole: JSON and CSV line by line; markdown too; a table
// measures its columns in a first pass over the lines and writes them in a second.
class ReportWriter : public ledger::ReportSink {
 public:
  ReportWriter(Format f, std::ostream& out) : f_(f), out_(out) {}

  int passes() const override { return f_ == Format::kTable ? 2 : 1; }

  core::Status begin(const ledger::ReportRequest& r,
                     const std::vector<ledger::ReportLine>& totals) override {
    req_ = r;
    totals_ = totals;
    for (const auto& t : totals_) currency_effective_[t.currency] = t.sums.effective;
    for (const auto& k : req_.by) dims_.push_back(ledger::group_key_name(k));
    if (f_ == Format::kJson) {
      Json query{{"by", dims_}};
      query["granularity"] = req_.granularity == ledger::Granularity::kTotal  ? "total"
                             : req_.granularity == ledger::Granularity::kDay  ? "day"
                             : req_.granularity == ledger::Granularity::kWeek ? "week"
                                                                              : "month";
      if (req_.from) query["from"] = ledger::day_text(*req_.from);
      if (req_.to) query["to"] = ledger::day_text(*req_.to);
      if (req_.top) query["top"] = req_.top;
      out_ << "{\n  \"query\": " << nested(query, 1) << ",\n  \"lines\": ";
      return {};
    }
    Table t;
    std::string title = "Cost";
    if (!dims_.empty()) {
      title += " by ";
      for (std::size_t i = 0; i < dims_.size(); ++i) title += (i ? ", " : "") + dims_[i];
    }
    if (req_.from || req_.to)
      title += fmt::format(", {} to {}", req_.from ? ledger::day_text(*req_.from) : "start",
                           req_.to ? ledger::day_text(*req_.to) + " (exclusive)" : "end");
    t.title = title + " (ranked by effective cost; money in each row's billing currency)";
    if (req_.granularity != ledger::Granularity::kTotal) t.header.push_back("period");
    for (const auto& d : dims_) t.header.push_back(d);
    // Grouped by currency, the group's own column is the currency column.
    by_currency_ = std::find(dims_.begin(), dims_.end(), "currency") != dims_.end();
    if (!by_currency_) t.header.push_back("currency");
    for (const char* h :
         {"billed", "effective", "list", "gpu_hours", "per_gpu_hour", "rows", "share_pct"})
      t.header.push_back(h);
    if (req_.useful) t.header.push_back("useful_pct");
    numbers_ = req_.useful ? 8 : 7;
    t.right_align.assign(t.header.size(), true);
    for (std::size_t i = 0; i < t.header.size() - numbers_; ++i) t.right_align[i] = false;
    totals_rows_ = f_ != Format::kCsv && t.header.size() > numbers_ + 1;
    writer_.emplace(t, f_);
    if (totals_rows_)
      for (const auto& l : totals_) writer_->measure(cells(l, true));
    if (f_ != Format::kTable) out_ << writer_->head();
    return {};
  }

  core::Status line(const ledger::ReportLine& l, int pass) override {
    if (f_ == Format::kJson) {
      out_ << (lines_++ == 0 ? "[\n    " : ",\n    ") << nested(line_json(l), 2);
      return {};
    }
    if (f_ == Format::kTable && pass == 0) {
      writer_->measure(cells(l, false));
      return {};
    }
    if (f_ == Format::kTable && lines_ == 0) out_ << writer_->head();
    ++lines_;
    chunk_.push_back(cells(l, false));
    if (chunk_.size() == kChunk) flush();
    return {};
  }

  core::Status end(const std::vector<ledger::UntaggedShare>& untagged) override {
    if (f_ == Format::kJson) {
      out_ << (lines_ == 0 ? "[]" : "\n  ]");
      Json totals = Json::array();
      for (const auto& t : totals_) totals.push_back(line_json(t));
      Json shares = Json::array();
      for (const auto& u : untagged)
        shares.push_back({{"tag", u.tag_key},
                          {"currency", u.currency},
                          {"share", u.share},
                          {"untagged_effective", exact(u.untagged_effective)}});
      out_ << ",\n  \"totals\": " << nested(totals, 1) << ",\n  \"untagged\": " << nested(shares, 1)
           << "\n}\n";
      return {};
    }
    if (f_ == Format::kTable && lines_ == 0) out_ << writer_->head();
    if (totals_rows_)
      for (const auto& l : totals_) chunk_.push_back(cells(l, true));
    flush();
    if (f_ == Format::kCsv) return {};
    if (req_.useful)
      out_ << "useful_pct: GPU-hours weighted by the hosts' mean SM_ACTIVE (else GR_ENGINE_ACTIVE, "
              "else GPU_UTIL) that day,\n"
              "  over the GPU-hours whose resource has telemetry; empty where none has\n";
    for (const auto& u : untagged)
      out_ << fmt::format("untagged {}: {:.1f} % of {} Usage and Purchase effective cost ({} {})\n",
                          u.tag_key, 100.0 * u.share, u.currency, u.currency,
                          people(u.untagged_effective));
    return {};
  }

 private:
  static constexpr std::size_t kChunk = 4096;

  void flush() {
    out_ << writer_->rows(chunk_);
    chunk_.clear();
  }

  Json line_json(const ledger::ReportLine& l) const {
    Json j;
    if (req_.granularity != ledger::Granularity::kTotal) j["period"] = l.period;
    for (std::size_t i = 0; i < dims_.size() && i < l.values.size(); ++i)
      j[dims_[i]] = l.values[i];  // totals have none
    j["currency"] = l.currency;
    j["billed"] = exact(l.sums.billed);
    j["effective"] = exact(l.sums.effective);
    j["list"] = exact(l.sums.list);
    j["contracted"] = exact(l.sums.contracted);
    j["gpu_hours"] = l.sums.gpu_hours;
    if (req_.useful) {
      j["observed_gpu_hours"] = l.sums.observed_gpu_hours;
      j["useful_gpu_hours"] = l.sums.useful_gpu_hours;
    }
    j["rows"] = l.sums.rows;
    return j;
  }

  std::vector<std::string> cells(const ledger::ReportLine& l, bool total) const {
    std::vector<std::string> c;
    if (req_.granularity != ledger::Granularity::kTotal) c.push_back(total ? "total" : l.period);
    for (std::size_t i = 0; i < dims_.size(); ++i)
      c.push_back(!total                   ? l.values[i]
                  : dims_[i] == "currency" ? l.currency
                  : i == 0 && c.empty()    ? "total"
                                           : "");
    if (!by_currency_) c.push_back(l.currency);
    c.push_back(money(l.sums.billed, f_));
    c.push_back(money(l.sums.effective, f_));
    c.push_back(money(l.sums.list, f_));
    c.push_back(l.sums.gpu_hours > 0 ? for_people(fmt::format("{:.1f}", l.sums.gpu_hours), f_)
                                     : "");
    c.push_back(l.sums.gpu_hours > 0 ? fmt::format("{:.4f}", static_cast<double>(l.sums.effective) /
                                                                 1e9 / l.sums.gpu_hours)
                                     : std::string());
    c.push_back(for_people(std::to_string(l.sums.rows), f_));
    const auto it = currency_effective_.find(l.currency);
    const core::WideNanos total_effective = it == currency_effective_.end() ? 0 : it->second;
    c.push_back(fmt::format("{:.1f}", total_effective != 0
                                          ? 100.0 * static_cast<double>(l.sums.effective) /
                                                static_cast<double>(total_effective)
                                          : 0.0));
    if (req_.useful)
      c.push_back(
          l.sums.observed_gpu_hours > 0
              ? fmt::format("{:.1f}", 100.0 * l.sums.useful_gpu_hours / l.sums.observed_gpu_hours)
              : "");
    return c;
  }

  Format f_;
  std::ostream& out_;
  ledger::ReportRequest req_;
  std::vector<ledger::ReportLine> totals_;
  std::map<std::string, core::WideNanos> currency_effective_;
  std::vector<std::string> dims_;
  std::size_t numbers_ = 7;
  bool by_currency_ = false;
  bool totals_rows_ = false;
  std::optional<TableWriter> writer_;
  std::vector<std::vector<std::string>> chunk_;
  std::size_t lines_ = 0;
};

}  // namespace

std::string render_ledger_report(const ledger::Report& r, Format f) {
  if (f == Format::kHtml)
    return html_page("aicost ledger report", ledger_report_charts(r),
                     render_ledger_report(r, Format::kTable));
  std::ostringstream out;
  ReportWriter w(f, out);
  (void)w.begin(r.request, r.totals);
  for (int pass = 0; pass < w.passes(); ++pass)
    for (const auto& l : r.lines) (void)w.line(l, pass);
  (void)w.end(r.untagged);
  return out.str();
}

core::Status write_ledger_report(ledger::Store& store, const ledger::ReportRequest& r, Format f,
                                 std::ostream& out) {
  if (f == Format::kHtml) {  // a page draws the whole report: it is held whole
    auto report = ledger::run_report(store, r);
    if (!report) return report.error();
    out << render_ledger_report(*report, f);
    return {};
  }
  ReportWriter w(f, out);
  return ledger::stream_report(store, r, w);
}

}  // namespace aicost::report
