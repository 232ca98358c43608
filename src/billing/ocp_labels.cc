// The node and namespace labels reports of koku's metrics operator (koku/masu/test/data/ocp/
// *_node_labels.csv, *_namespace_labels.csv; koku-metrics-operator's cm-openshift-node-usage and
// cm-openshift-namespace-usage reports): hourly rows of a node or namespace and its labels. They
// hold no usage: their labels tag the pod, volume and GPU rows of the same delivery read after
// them, by name and day, as koku's daily summary joins them (ocp_common.h). And the helpers the
// OpenShift readers share.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "aicost/billing/source.h"
#include "ocp_common.h"

namespace aicost::billing {

std::shared_ptr<DeliveryContext> make_delivery_context() {
  return std::make_shared<DeliveryContext>();
}

namespace ocp {

void add_labels(std::string_view text, std::vector<ledger::Tag>& tags) {
  while (!text.empty()) {
    const auto bar = text.find('|');
    std::string_view item = text.substr(0, bar);
    text = bar == std::string_view::npos ? std::string_view{} : text.substr(bar + 1);
    const auto colon = item.find(':');
    std::string_view key = item.substr(0, colon);
    if (key.substr(0, 6) == "label_" && key.size() > 6) key.remove_prefix(6);
    if (key.empty()) continue;
    const std::string canonical = ledger::canonical_tag_key(key);
    // A label named like a tag the report gives (namespace, pod, node), or one added before
    // (the labels that win come first), does not replace it.
    if (std::any_of(tags.begin(), tags.end(), [&](const ledger::Tag& t) {
          return ledger::canonical_tag_key(t.key) == canonical;
        }))
      continue;
    tags.push_back({std::string(key), colon == std::string_view::npos
                                          ? std::string()
                                          : std::string(item.substr(colon + 1))});
  }
}

std::optional<double> number(const CsvRecord& r, int i, std::string_view column, IssueLog& log,
                             std::string_view what) {
  std::string_view v = cell(r, i);
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  if (is_null(v)) return 0.0;
  double d = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  if (ec != std::errc() || end != v.data() + v.size() || !std::isfinite(d) || d < 0) {
    log.error(r.line, column,
              quote_cell(v) + " is not a number of " + std::string(what) +
                  " (a decimal number, 0 or more)");
    return std::nullopt;
  }
  return d;
}

void tag_cell(const CsvRecord& r, const char* key, int column, ledger::Charge& c) {
  if (auto v = text_cell(r, column); !v.empty()) c.tags.push_back({key, std::move(v)});
}

std::optional<std::pair<ledger::UnixSeconds, ledger::UnixSeconds>> interval(const CsvRecord& r,
                                                                            int start, int end,
                                                                            IssueLog& log) {
  const auto from = required_time(r, start, "interval_start", log);
  auto to = from ? required_time(r, end, "interval_end", log) : std::nullopt;
  if (!from || !to) return std::nullopt;
  if ((*to - *from) % 60 == 59) ++*to;
  if (*to <= *from) {
    log.error(r.line, "interval_end", "the interval ends before it starts");
    return std::nullopt;
  }
  return std::pair{*from, *to};
}

void Labels::add(Of of, std::string_view name, ledger::Day day, std::string_view text) {
  if (name.empty()) return;
  auto& tags = by_[std::tuple{of, std::string(name), day}];
  add_labels(text, tags);
}

void Labels::apply(Of of, std::string_view name, ledger::Day day,
                   std::vector<ledger::Tag>& tags) const {
  if (by_.empty() || name.empty()) return;
  const auto it = by_.find(std::tuple{of, std::string(name), day});
  if (it == by_.end()) return;
  for (const auto& t : it->second) {
    const std::string canonical = ledger::canonical_tag_key(t.key);
    if (std::none_of(tags.begin(), tags.end(), [&](const ledger::Tag& u) {
          return ledger::canonical_tag_key(u.key) == canonical;
        }))
      tags.push_back(t);
  }
}

namespace {

class LabelsPart final : public CsvDialect {
 public:
  explicit LabelsPart(Labels& labels) : labels_(labels) {}

  core::Status header(const std::vector<std::string_view>& names, IssueLog& log) override {
    Columns cols(names);
    of_ = cols.has("node_labels") ? Labels::Of::kNode : Labels::Of::kNamespace;
    const char* name = of_ == Labels::Of::kNode ? "node" : "namespace";
    name_ = cols.find({name});
    labels_column_ = cols.find({of_ == Labels::Of::kNode ? "node_labels" : "namespace_labels"});
    start_ = cols.find({"interval_start"});
    end_ = cols.find({"interval_end"});
    cols.find({"report_period_start"});
    cols.find({"report_period_end"});
    std::string missing;
    for (const auto& [i, column] :
         {std::pair{name_, name}, {start_, "interval_start"}, {end_, "interval_end"}})
      if (i < 0) missing += std::string(missing.empty() ? "" : ", ") + column;
    if (!missing.empty())
      return core::make_error(core::ErrorCode::kInvalidInput,
                              std::string("not an OpenShift ") + name +
                                  " labels report aicost can read: no " + missing + " column");
    return cols.check_duplicates(log);
  }

  bool row(const CsvRecord& r, ledger::Charge&, IssueLog& log, std::int64_t&) override {
    const auto when = interval(r, start_, end_, log);
    absorbed_ = when.has_value();
    if (when)
      labels_.add(of_, cell(r, name_), ledger::day_of(when->first), cell(r, labels_column_));
    return false;
  }
  bool absorbed() const override { return absorbed_; }

  std::string version() const override {
    return of_ == Labels::Of::kNode ? "ocp-node-labels" : "ocp-namespace-labels";
  }
  std::string_view tags_column() const override {
    return of_ == Labels::Of::kNode ? "node_labels" : "namespace_labels";
  }

 private:
  Labels& labels_;
  Labels::Of of_ = Labels::Of::kNode;
  int name_ = -1, labels_column_ = -1, start_ = -1, end_ = -1;
  bool absorbed_ = false;
};

}  // namespace

std::unique_ptr<CsvDialect> make_labels_part(Labels& labels) {
  return std::make_unique<LabelsPart>(labels);
}

void stamp_usage(const CsvRecord& r, ledger::UnixSeconds start, ledger::UnixSeconds end,
                 int namespace_column, ledger::Charge& c) {
  c.period_start = start;
  c.period_end = end;
  c.billing_period_start = month_start(start);
  c.provider = "OpenShift";
  c.service_name = "OpenShift";
  c.service_category = "Compute";
  c.charge_category = "Usage";
  c.charge_frequency = "Usage-Based";
  c.sub_account_id = c.sub_account_name = text_cell(r, namespace_column);
}

bool uptime_fits(const CsvRecord& r, double uptime, ledger::UnixSeconds start,
                 ledger::UnixSeconds end, const char* column, IssueLog& log) {
  if (uptime <= static_cast<double>(end - start) + 60) return true;
  log.error(r.line, column,
            std::to_string(uptime) + " s of uptime in an interval of " +
                std::to_string(end - start) + " s; not a reading");
  return false;
}

namespace {

// The first line of a file's first member, decoded (at most 4 KiB); "" when it cannot be read
// (the read that loads it then says why).
std::string first_line(const std::string& path) {
  std::string head;
  DecodedSink sink;
  sink.begin = [](const std::string&) { return core::Status{}; };
  sink.bytes = [&](std::string_view bytes) -> core::Status {
    head.append(bytes.substr(0, 4096 - std::min<std::size_t>(head.size(), 4096)));
    if (head.find('\n') == std::string::npos && head.size() < 4096) return {};
    return core::make_error(core::ErrorCode::kInternal, "enough");  // stops the read
  };
  sink.end = [&]() -> core::Status {
    return core::make_error(core::ErrorCode::kInternal, "enough");
  };
  (void)decode_source(path, sink);
  return head.substr(0, head.find('\n'));
}

}  // namespace

std::vector<std::string> labels_first(const std::vector<std::string>& parts, Format format) {
  if (parts.size() < 2 || (format != Format::kAuto && format != Format::kOcp)) return parts;
  auto is_labels = [](const std::string& line) {
    return detect_format(line) == Format::kOcp &&
           (line.find("node_labels") != std::string::npos ||
            line.find("namespace_labels") != std::string::npos);
  };
  std::vector<std::string> lines;
  for (const auto& p : parts) {
    lines.push_back(first_line(p));
    if (lines.size() == 1 && format == Format::kAuto && detect_format(lines[0]) != Format::kOcp)
      return parts;
  }
  std::vector<std::string> out;
  for (std::size_t k = 0; k < parts.size(); ++k)
    if (is_labels(lines[k])) out.push_back(parts[k]);
  for (std::size_t k = 0; k < parts.size(); ++k)
    if (!is_labels(lines[k])) out.push_back(parts[k]);
  return out;
}

}  // namespace ocp
}  // namespace aicost::billing
