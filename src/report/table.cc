#include "aicost/report/table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "aicost/core/text.h"
#include "json.h"

namespace aicost::report {

namespace {

// Column count: the widest of the header and every row, so ragged input still renders.
std::size_t column_count(const Table& t) {
  std::size_t n = t.header.size();
  for (const auto& r : t.rows) n = std::max(n, r.size());
  return n;
}

const std::string& cell(const std::vector<std::string>& row, std::size_t i) {
  static const std::string kEmpty;
  return i < row.size() ? row[i] : kEmpty;
}

bool right(const Table& t, std::size_t i) { return i < t.right_align.size() && t.right_align[i]; }

// A cell may carry a newline (a long driver); in a one-line-per-row format it becomes a space.
std::string one_line(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return out;
}

void pad(std::string& out, const std::string& text, std::size_t width, bool align_right) {
  const std::size_t w = display_width(text);
  const std::string fill(width > w ? width - w : 0, ' ');
  out += align_right ? fill + text : text + fill;
}

void trim_right(std::string& line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
}

// A plain number: what strtod accepts in full, without spaces, grouping or a unit.
std::optional<nlohmann::ordered_json> as_number(const std::string& s) {
  if (s.empty() || s.find_first_of(" ,_") != std::string::npos) return std::nullopt;
  if (s.find_first_of(".eE") == std::string::npos) {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size()) return nlohmann::ordered_json(v);
  }
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(d)) return std::nullopt;
  // strtod also takes hex and "inf"; only decimal digits count as a plain number.
  if (s.find_first_of("xXnNiI") != std::string::npos) return std::nullopt;
  return nlohmann::ordered_json(d);
}

// OWASP "CSV Injection": a cell a spreadsheet would run as a formula (=, +, -, @, tab or CR
// first) gets a leading ' and quotes; numbers ("-12.5", "+3") stay as they are.
bool formula_like(const std::string& s) {
  return !s.empty() && std::string_view("=+-@\t\r").find(s.front()) != std::string_view::npos &&
         !as_number(s);
}

std::string csv_field(const std::string& cell) {
  const bool formula = formula_like(cell);
  std::string s = formula ? "'" + cell : cell;
  if (!formula && s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : one_line(s)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string render_json(const Table& t) {
  const std::size_t n = column_count(t);
  auto rows = nlohmann::ordered_json::array();
  for (const auto& r : t.rows) {
    nlohmann::ordered_json obj = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < n; ++i) {
      const std::string key = i < t.header.size() ? t.header[i] : "column_" + std::to_string(i + 1);
      const std::string& v = cell(r, i);
      if (v.empty()) {
        obj[key] = nullptr;
      } else if (auto num = right(t, i) ? as_number(v) : std::nullopt) {
        obj[key] = *num;
      } else {
        obj[key] = v;
      }
    }
    rows.push_back(std::move(obj));
  }
  return json_text(rows) + "\n";
}

}  // namespace

std::optional<Format> format_from_string(std::string_view name) {
  const std::string n = core::ascii_lower(name);
  if (n == "table") return Format::kTable;
  if (n == "json") return Format::kJson;
  if (n == "csv") return Format::kCsv;
  if (n == "markdown" || n == "md") return Format::kMarkdown;
  if (n == "html") return Format::kHtml;
  return std::nullopt;
}

const char* to_string(Format f) {
  switch (f) {
    case Format::kTable: return "table";
    case Format::kJson: return "json";
    case Format::kCsv: return "csv";
    case Format::kMarkdown: return "markdown";
    case Format::kHtml: return "html";
  }
  return "?";
}

std::size_t display_width(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) ++n;  // count lead bytes, not UTF-8 continuation bytes
  }
  return n;
}

std::string indent(const std::string& text, std::size_t spaces) {
  const std::string pad(spaces, ' ');
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out += pad + text.substr(start, end - start);
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

// An HTML page shows its tables as the plain-text table (report/html.h), so kHtml lays out as
// kTable.
TableWriter::TableWriter(const Table& t, Format format)
    : format_(format == Format::kHtml ? Format::kTable : format), columns_(column_count(t)) {
  head_.header = t.header;
  head_.right_align = t.right_align;
  head_.title = t.title;
  if (format_ != Format::kTable) return;
  width_.assign(columns_, 0);
  measure(t.header);
  for (const auto& r : t.rows) measure(r);
}

void TableWriter::measure(const std::vector<std::string>& row) {
  if (format_ != Format::kTable) return;
  for (std::size_t i = 0; i < columns_; ++i)
    width_[i] = std::max(width_[i], display_width(one_line(cell(row, i))));
}

std::string TableWriter::line(const std::vector<std::string>& r) const {
  std::string l;
  switch (format_) {
    case Format::kTable:
      for (std::size_t i = 0; i < columns_; ++i) {
        if (i > 0) l += "  ";
        pad(l, one_line(cell(r, i)), width_[i], right(head_, i));
      }
      trim_right(l);
      return l + "\n";
    case Format::kCsv:
      for (std::size_t i = 0; i < columns_; ++i) {
        if (i > 0) l += ',';
        l += csv_field(cell(r, i));
      }
      return l + '\n';
    case Format::kMarkdown:
      l += '|';
      for (std::size_t i = 0; i < columns_; ++i) l += " " + md_cell(cell(r, i)) + " |";
      return l + '\n';
    case Format::kJson:
    case Format::kHtml:  // laid out as kTable (constructor)
      break;
  }
  return l;
}

std::string TableWriter::head() const {
  std::string out;
  switch (format_) {
    case Format::kTable:
      if (!head_.title.empty()) out += head_.title + "\n";
      if (!head_.header.empty()) {
        out += line(head_.header);
        std::string u;
        for (std::size_t i = 0; i < columns_; ++i) {
          if (i > 0) u += "  ";
          u += std::string(width_[i], '-');
        }
        out += u + "\n";
      }
      break;
    case Format::kCsv:
      if (!head_.header.empty()) out += line(head_.header);
      break;
    case Format::kMarkdown:
      if (!head_.title.empty()) out += "### " + head_.title + "\n\n";
      out += line(head_.header);
      out += '|';
      for (std::size_t i = 0; i < columns_; ++i) out += right(head_, i) ? " --: |" : " --- |";
      out += '\n';
      break;
    case Format::kJson:
    case Format::kHtml:  // laid out as kTable (constructor)
      break;
  }
  return out;
}

std::string TableWriter::rows(const std::vector<std::vector<std::string>>& rows) const {
  std::string out;
  for (const auto& r : rows) out += line(r);
  return out;
}

std::string render(const Table& table, Format format) {
  if (format == Format::kJson) return render_json(table);
  const TableWriter w(table, format);
  return w.head() + w.rows(table.rows);
}

}  // namespace aicost::report
