// stream_report (report.h): the store's groups turned into report lines as they come, top N kept
// as the groups close, totals and untagged shares from a query of their own.
#include "aicost/ledger/report.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace aicost::ledger {
namespace {

// Where each entry of r.by sits in the row values of a query of `dims` plain dimensions: plain
// ones at their dimension's place, tags after them in order.
std::vector<std::size_t> value_positions(const ReportRequest& r,
                                         const std::vector<Dimension>& dims) {
  std::vector<std::size_t> pos(r.by.size(), 0);
  for (std::size_t i = 0, tag = 0; i < r.by.size(); ++i)
    pos[i] = r.by[i].dim == Dimension::kTag
                 ? dims.size() + tag++
                 : static_cast<std::size_t>(std::find(dims.begin(), dims.end(), r.by[i].dim) -
                                            dims.begin());
  return pos;
}

// The queries behind stream_report, in the order the store answers them: the totals (by charge
// category when a tag is grouped by, for the untagged share), the useful share's GPU rows, and
// the lines, twice when the sink reads them twice.
struct Plan {
  AggregateQuery totals, useful, lines;
  std::vector<std::size_t> value_pos;  // r.by -> lines' row values
  std::size_t useful_keep = 0;         // the useful rows' values before category, resource and name
  bool useful_category = false;        // whether they carry a charge category
};

Plan plan_of(const ReportRequest& r) {
  Plan p;
  // build_report's query without the charge category: the lines' groups are the report's lines.
  AggregateQuery q = aggregate_query(r);
  const bool category_added =
      !q.tags.empty() && std::none_of(r.by.begin(), r.by.end(), [](const GroupKey& k) {
        return k.dim == Dimension::kChargeCategory;
      });
  p.useful = q;
  if (category_added) q.dims.pop_back();
  p.lines = q;
  p.lines.period = r.granularity == Granularity::kWeek    ? Period::kWeek
                   : r.granularity == Granularity::kMonth ? Period::kMonth
                                                          : Period::kDay;
  p.value_pos = value_positions(r, p.lines.dims);
  if (r.top == 0) {
    p.lines.order = RowOrder::kCost;
    p.lines.cost_ties = p.value_pos;
    p.lines.untagged_text = kUntagged;
  }
  p.totals = q;
  p.totals.dims.clear();
  if (!q.tags.empty()) p.totals.dims.push_back(Dimension::kChargeCategory);
  p.totals.by_day = false;
  // GPU rows by resource and day, in build_report's order (its query's dimensions, the charge
  // category among them, then resource and name).
  p.useful_keep = p.useful.dims.size();
  p.useful_category = category_added;
  p.useful.dims.push_back(Dimension::kResource);
  p.useful.dims.push_back(Dimension::kResourceName);
  p.useful.by_day = true;
  p.useful.gpu_rows_only = true;
  return p;
}

// A line's key: its period's first day, values as the lines query has them, currency.
using UsefulKey = std::tuple<Day, std::vector<std::string>, std::string>;

// Makes a report out of the store's rows as they come (stream_report).
class Streamer {
 public:
  Streamer(const ReportRequest& r, const Plan& p, std::vector<HostActivity> activity,
           ReportSink& sink)
      : r_(r), p_(p), activity_(std::move(activity)), sink_(sink) {}

  core::Status row(std::size_t query, AggregateRow& row) {
    switch (query) {
      case 0: return total(row);
      case 1:
        if (r_.useful) return useful(row);
        [[fallthrough]];
      default: return line(row, static_cast<int>(query - (r_.useful ? 2 : 1)));
    }
  }

  core::Status finish() {
    if (r_.top > 0) {
      if (auto s = close_group(); !s) return s;
      return ranked();
    }
    if (auto s = begin(); !s) return s;
    return sink_.end(untagged());
  }

 private:
  core::Status total(const AggregateRow& row) {
    totals_[row.currency] += row.sums;
    // The untagged share: per tag grouped by, of taggable spend (Usage and Purchase).
    static const std::string kNone;
    const std::string& category = p_.totals.dims.empty() ? kNone : row.values[0];
    const bool taggable = category.empty() || category == "Usage" || category == "Purchase";
    for (std::size_t i = 0, tag = 0; i < r_.by.size(); ++i) {
      if (r_.by[i].dim != Dimension::kTag) continue;
      const std::string& value = row.values[p_.totals.dims.size() + tag++];
      if (!taggable) continue;
      auto& u = untagged_[{i, row.currency}];
      u.second += row.sums.effective;
      if (value.empty()) u.first += row.sums.effective;
    }
    return {};
  }

  core::Status useful(AggregateRow& row) {
    if (activity_sorted_ == false) {
      std::sort(activity_.begin(), activity_.end(),
                [](const HostActivity& a, const HostActivity& b) {
                  return std::tie(a.host, a.day) < std::tie(b.host, b.day);
                });
      activity_sorted_ = true;
    }
    const std::size_t keep = p_.useful_keep;
    const std::string& id = row.values[keep];
    const std::string& name = row.values[keep + 1];
    std::optional<double> busy;
    for (const std::string& host : {name, id, id.substr(id.find_last_of('/') + 1)})
      if (!host.empty() && !busy) busy = host_activity(activity_, host, row.day);
    if (!busy) return {};
    std::vector<std::string> values(row.values.begin(),
                                    row.values.begin() + static_cast<std::ptrdiff_t>(keep));
    if (p_.useful_category) values.pop_back();
    values.insert(values.end(), row.values.begin() + static_cast<std::ptrdiff_t>(keep) + 2,
                  row.values.end());
    const Day period =
        r_.granularity == Granularity::kTotal ? 0 : period_start(p_.lines.period, row.day);
    auto& u = useful_[{period, std::move(values), row.currency}];
    u.first += row.sums.gpu_hours;
    u.second += row.sums.gpu_hours * *busy;
    Sums& t = totals_[row.currency];
    t.observed_gpu_hours += row.sums.gpu_hours;
    t.useful_gpu_hours += row.sums.gpu_hours * *busy;
    return {};
  }

  core::Status line(AggregateRow& row, int pass) {
    if (r_.useful) {
      if (const auto it = useful_.find({row.day, row.values, row.currency}); it != useful_.end()) {
        row.sums.observed_gpu_hours = it->second.first;
        row.sums.useful_gpu_hours = it->second.second;
      }
    }
    if (r_.top > 0) return ranked_row(row);
    if (auto s = begin(); !s) return s;
    fill(line_, row);
    return sink_.line(line_, pass);
  }

  // The report line of a row: its period, the values in r.by's order (untagged named), currency.
  void fill(ReportLine& l, AggregateRow& row) {
    auto [it, fresh] = labels_.try_emplace(row.day);
    if (fresh) it->second = period_label(r_.granularity, row.day);
    l.period = it->second;
    l.values.resize(r_.by.size());
    for (std::size_t i = 0; i < r_.by.size(); ++i) {
      std::string& v = row.values[p_.value_pos[i]];
      if (r_.by[i].dim == Dimension::kTag && v.empty())
        l.values[i] = kUntagged;
      else
        l.values[i] = v;
    }
    l.currency = row.currency;
    l.sums = row.sums;
  }

  core::Status begin() {
    if (begun_) return {};
    begun_ = true;
    std::vector<ReportLine> totals;
    for (const auto& [currency, sums] : totals_) totals.push_back({"", {}, currency, sums});
    return sink_.begin(r_, totals);
  }

  std::vector<UntaggedShare> untagged() const {
    std::vector<UntaggedShare> out;
    for (const auto& [k, u] : untagged_) {
      const double share =
          u.second != 0 ? static_cast<double>(u.first) / static_cast<double>(u.second) : 0.0;
      out.push_back({r_.by[k.first].tag_key, k.second, share, u.first});
    }
    return out;
  }

  // ---- Top N: the groups come whole (text order: a group's periods in a run), ranked as they
  // close.

  // One group (values and currency) with its lines, one per period.
  struct Group {
    core::WideNanos effective = 0;
    std::vector<ReportLine> lines;
  };
  // Ranks first: more effective cost, then values and currency as text.
  static bool better(const Group& a, const Group& b) {
    if (a.effective != b.effective) return a.effective > b.effective;
    const ReportLine& x = a.lines.front();
    const ReportLine& y = b.lines.front();
    return std::tie(x.values, x.currency) < std::tie(y.values, y.currency);
  }

  core::Status ranked_row(AggregateRow& row) {
    ReportLine l;
    fill(l, row);
    if (!current_.lines.empty() &&
        (current_.lines.back().values != l.values || current_.lines.back().currency != l.currency))
      if (auto s = close_group(); !s) return s;
    current_.effective += l.sums.effective;
    current_.lines.push_back(std::move(l));
    return {};
  }

  // The current group joins the top N, pushing out the lowest, or goes to (other) itself.
  core::Status close_group() {
    if (current_.lines.empty()) return {};
    auto worse_first = [](const Group& a, const Group& b) {
      return better(a, b);
    };  // a heap's top is its worst
    if (top_.size() < r_.top) {
      top_.push_back(std::move(current_));
      std::push_heap(top_.begin(), top_.end(), worse_first);
    } else if (better(current_, top_.front())) {
      std::pop_heap(top_.begin(), top_.end(), worse_first);
      other(top_.back());
      top_.back() = std::move(current_);
      std::push_heap(top_.begin(), top_.end(), worse_first);
    } else {
      other(current_);
    }
    current_ = Group{};
    return {};
  }

  void other(const Group& g) {
    for (const auto& l : g.lines) others_[{l.period, l.currency}] += l.sums;
  }

  core::Status ranked() {
    std::vector<ReportLine> lines;
    for (auto& g : top_)
      for (auto& l : g.lines) lines.push_back(std::move(l));
    const std::vector<std::string> other_values(r_.by.size(), kOther);
    for (const auto& [k, sums] : others_) lines.push_back({k.first, other_values, k.second, sums});
    std::sort(lines.begin(), lines.end(), [](const ReportLine& a, const ReportLine& b) {
      if (a.period != b.period) return a.period < b.period;
      const bool a_other = !a.values.empty() && a.values.front() == kOther;
      const bool b_other = !b.values.empty() && b.values.front() == kOther;
      if (a_other != b_other) return b_other;  // (other) last in its period
      if (a.sums.effective != b.sums.effective) return a.sums.effective > b.sums.effective;
      return std::tie(a.values, a.currency) < std::tie(b.values, b.currency);
    });
    if (auto s = begin(); !s) return s;
    for (int pass = 0; pass < sink_.passes(); ++pass)
      for (const auto& l : lines)
        if (auto s = sink_.line(l, pass); !s) return s;
    return sink_.end(untagged());
  }

  const ReportRequest& r_;
  const Plan& p_;
  std::vector<HostActivity> activity_;
  bool activity_sorted_ = false;
  ReportSink& sink_;
  bool begun_ = false;
  std::map<std::string, Sums> totals_;
  std::map<std::pair<std::size_t, std::string>, std::pair<core::WideNanos, core::WideNanos>>
      untagged_;
  std::map<UsefulKey, std::pair<double, double>> useful_;  // observed and useful GPU-hours by line
  std::unordered_map<Day, std::string> labels_;
  ReportLine line_;
  Group current_;
  std::vector<Group> top_;                                      // a heap, worst on top
  std::map<std::pair<std::string, std::string>, Sums> others_;  // by period and currency
};

// Collects the lines of a report.
class Collect : public ReportSink {
 public:
  explicit Collect(Report& out) : out_(out) {}
  core::Status begin(const ReportRequest& r, const std::vector<ReportLine>& totals) override {
    out_.request = r;
    out_.totals = totals;
    return {};
  }
  core::Status line(const ReportLine& l, int) override {
    out_.lines.push_back(l);
    return {};
  }
  core::Status end(const std::vector<UntaggedShare>& untagged) override {
    out_.untagged = untagged;
    return {};
  }

 private:
  Report& out_;
};

}  // namespace

core::Status stream_report(Store& store, const ReportRequest& r, ReportSink& sink) {
  const Plan plan = plan_of(r);
  std::vector<HostActivity> activity;
  std::vector<AggregateQuery> queries{plan.totals};
  if (r.useful) {
    auto a = store.gpu_activity(r.from, r.to);
    if (!a) return a.error();
    activity = std::move(*a);
    queries.push_back(plan.useful);
  }
  // Without --top the store hands out the lines as it sorts them, once per pass of the sink.
  for (int pass = 0; pass < (r.top > 0 ? 1 : sink.passes()); ++pass) queries.push_back(plan.lines);
  Streamer streamer(r, plan, std::move(activity), sink);
  if (auto s = store.aggregate_into(
          queries, [&](std::size_t q, AggregateRow& row) { return streamer.row(q, row); });
      !s)
    return s;
  return streamer.finish();
}

core::Result<Report> run_report(Store& store, const ReportRequest& r) {
  Report out;
  out.request = r;
  Collect collect(out);
  if (auto s = stream_report(store, r, collect); !s) return s.error();
  return out;
}

}  // namespace aicost::ledger
