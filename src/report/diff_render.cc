#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "aicost/core/text.h"
#include "aicost/report/html.h"
#include "aicost/report/table.h"
#include "diff_parts.h"
#include "rounding.h"

namespace aicost::report::diff {

std::vector<Change> changed_values(const PlanValues& a, const PlanValues& b) {
  std::map<std::string, std::string> in_a(a.begin(), a.end()), in_b(b.begin(), b.end());
  auto value = [](const std::map<std::string, std::string>& m, const std::string& path) {
    const auto it = m.find(path);
    return it == m.end() ? Json() : Json(it->second);
  };
  std::vector<Change> out;
  for (const auto& [path, text] : a) {
    const Json vb = value(in_b, path);
    if (vb != Json(text)) out.push_back({path, text, vb});
  }
  for (const auto& [path, text] : b) {
    if (!in_a.count(path)) out.push_back({path, Json(), text});
  }
  return out;
}

std::vector<Change> changed_fields(const Fields& a, const Fields& b) {
  std::vector<Change> out;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i].second != b[i].second) out.push_back({a[i].first, a[i].second, b[i].second});
  }
  return out;
}

namespace {

// A value as a plan file would write it: strings bare, the rest as JSON ("2", "true").
std::string plain(const Json& x) {
  if (x.is_null()) return "";
  return x.is_string() ? x.get<std::string>() : json_text(x, -1);
}

}  // namespace

std::vector<Change> without_repeats(std::vector<Change> resolved,
                                    const std::vector<Change>& inputs) {
  auto repeated = [&](const Change& r) {
    for (const auto& in : inputs) {
      const std::string tail = "." + r.name;
      const bool named = in.name.size() > tail.size() &&
                         in.name.compare(in.name.size() - tail.size(), tail.size(), tail) == 0;
      if (named && plain(in.a) == plain(r.a) && plain(in.b) == plain(r.b)) return true;
    }
    return false;
  };
  resolved.erase(std::remove_if(resolved.begin(), resolved.end(), repeated), resolved.end());
  return resolved;
}

Diff compare(std::string kind, const Side& a, const Side& b) {
  Diff d;
  d.kind = std::move(kind);
  d.a_name = a.name;
  d.b_name = b.name;
  d.inputs = changed_values(a.values, b.values);
  d.resolved = without_repeats(changed_fields(a.resolved, b.resolved), d.inputs);
  return d;
}

namespace {

double rounded(Kind k, double x) {
  return k == Kind::kUsd || k == Kind::kUsdCents ? cents(x) : sig(x);
}

}  // namespace

Row row(std::string path, std::string label, const char* unit, Kind kind, std::optional<double> a,
        std::optional<double> b) {
  Row r{std::move(path), std::move(label), unit,         kind,
        std::nullopt,    std::nullopt,     std::nullopt, std::nullopt};
  if (a) r.a = rounded(kind, *a);
  if (b) r.b = rounded(kind, *b);
  if (r.a && r.b) {
    r.delta = rounded(kind, *r.b - *r.a);
    if (*r.a != 0) r.relative = sig((*r.b - *r.a) / *r.a);
  }
  return r;
}

namespace {

// How an input value reads in a table: strings bare, booleans on/off, integers grouped.
std::string show(const Json& x) {
  if (x.is_null()) return "not set";
  if (x.is_string()) return x.get<std::string>();
  if (x.is_boolean()) return x.get<bool>() ? "on" : "off";
  if (x.is_number_integer()) return core::group_digits(x.get<double>());
  if (x.is_number()) {
    const double d = x.get<double>();
    return d == std::round(d) && std::fabs(d) < 1e15 ? core::group_digits(d) : fmt::format("{}", d);
  }
  return json_text(x, -1);
}

std::string show(Kind k, const std::optional<double>& v, bool signed_delta) {
  if (!v) return "-";
  const double x = *v;
  std::string s;
  switch (k) {
    case Kind::kSeconds: s = fmt::format("{:.3f}", x); break;
    case Kind::kCount: s = core::group_digits(x); break;
    case Kind::kRatio: s = fmt::format("{:.1f} {}", x * 100, signed_delta ? "pp" : "%"); break;
    case Kind::kTflops:
    case Kind::kGib: s = fmt::format("{:.1f}", x); break;
    case Kind::kDays: s = fmt::format("{:.2f}", x); break;
    case Kind::kUsd: s = core::group_digits(x); break;
    case Kind::kUsdCents: s = core::group_digits(x, 2); break;
    case Kind::kUsdMilli: s = core::group_digits(x, 3); break;
  }
  if (signed_delta && x > 0) s = "+" + s;
  return s;
}

std::string relative_text(const std::optional<double>& r) {
  return r ? fmt::format("{:+.1f} %", *r * 100) : "n/a";
}

Json optional_json(const std::optional<double>& x) { return x ? Json(*x) : Json(nullptr); }

Json changes_json(const std::vector<Change>& list, const char* key) {
  Json out = Json::array();
  for (const auto& c : list) out.push_back({{key, c.name}, {"a", c.a}, {"b", c.b}});
  return out;
}

std::string render_json(const Diff& d) {
  Json j;
  j["schema_version"] = kEstimateSchemaVersion;
  j["kind"] = d.kind;
  j["plans"] = {{"a", d.a_name}, {"b", d.b_name}};
  j["inputs"] = changes_json(d.inputs, "path");
  j["resolved"] = changes_json(d.resolved, "field");
  Json outputs = Json::array();
  for (const auto& r : d.outputs) {
    outputs.push_back({{"metric", r.path},
                       {"unit", r.unit},
                       {"a", optional_json(r.a)},
                       {"b", optional_json(r.b)},
                       {"delta", optional_json(r.delta)},
                       {"relative", optional_json(r.relative)}});
  }
  j["outputs"] = outputs;
  return json_text(j) + "\n";
}

std::string render_csv(const Diff& d) {
  Table t{{"kind", "name", "a", "b", "delta", "relative"}, {}, {}, ""};
  auto raw = [](const Json& x) {
    return x.is_null() ? "" : x.is_string() ? x.get<std::string>() : json_text(x, -1);
  };
  for (const auto* list : {&d.inputs, &d.resolved}) {
    for (const auto& c : *list) {
      t.rows.push_back(
          {list == &d.inputs ? "input" : "resolved", c.name, raw(c.a), raw(c.b), "", ""});
    }
  }
  auto num = [&](const std::optional<double>& x) { return raw(optional_json(x)); };
  for (const auto& r : d.outputs) {
    t.rows.push_back({"output", r.path, num(r.a), num(r.b), num(r.delta), num(r.relative)});
  }
  return report::render(t, Format::kCsv);
}

// One "name  a → b" list under its heading; `none` when empty (or nothing at all).
std::string changes_text(const char* heading, const char* first, const std::vector<Change>& list,
                         const char* none, Format f) {
  const bool md = f == Format::kMarkdown;
  if (list.empty() && none == nullptr) return "";
  std::string out = md ? std::string("## ") + heading + "\n\n" : std::string(heading) + "\n";
  if (list.empty())
    return out + (md ? fmt::format("{}.\n\n", none) : fmt::format("  {}\n\n", none));
  Table t{{first, "a → b"}, {}, {false, false}, ""};
  for (const auto& c : list) t.rows.push_back({c.name, show(c.a) + " → " + show(c.b)});
  if (md) return out + report::render(t, f) + "\n";
  t.header.clear();
  return out + indent(report::render(t, f), 2) + "\n";
}

std::string render_people(const Diff& d, Format f) {
  const bool md = f == Format::kMarkdown;
  std::string out =
      (md ? "# aicost diff: " : "aicost diff: ") + d.a_name + " → " + d.b_name + "\n\n";
  out += changes_text("Inputs", "path", d.inputs, md ? "No input changed" : "no input changed", f);
  out += changes_text("Resolved", "field", d.resolved, nullptr, f);
  Table t{{"metric", "a", "b", "change", "relative"}, {}, {false, true, true, true, true}, ""};
  for (const auto& r : d.outputs) {
    t.rows.push_back({r.label, show(r.kind, r.a, false), show(r.kind, r.b, false),
                      show(r.kind, r.delta, true), relative_text(r.relative)});
  }
  out +=
      md ? "## Outputs\n\n" + report::render(t, f) : "Outputs\n" + indent(report::render(t, f), 2);
  return out;
}

}  // namespace

std::string render(const Diff& d, Format f, const std::vector<Chart>& charts) {
  switch (f) {
    case Format::kJson: return render_json(d);
    case Format::kCsv: return render_csv(d);
    case Format::kMarkdown: return render_people(d, f);
    case Format::kHtml:
      return html_page("aicost diff: " + d.a_name + " against " + d.b_name, charts,
                       render_people(d, Format::kTable));
    case Format::kTable: break;
  }
  return render_people(d, Format::kTable);
}

}  // namespace aicost::report::diff
