// A small table of already formatted cells and its rendering in every Format. Pure functions;
// thread-safe. render() never fails: ragged rows are padded with empty cells.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "aicost/report/format.h"

namespace aicost::report {

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  // Per column; a missing entry means left-aligned. Numbers go right-aligned.
  std::vector<bool> right_align;
  // Printed above the table (kTable: a line; kMarkdown: a "### " heading); not part of CSV/JSON.
  std::string title;
};

// kTable: columns padded to their widest cell (UTF-8 code points), two spaces between columns, a
//   header underline of '-', no box drawing, no colour, no trailing spaces; each line ends "\n".
// kCsv: header row then rows, RFC 4180 quoting (a field with ',', '"', CR or LF is quoted and its
//   quotes doubled); lines end with "\n". A cell that starts with '=', '+', '-', '@', tab or CR
//   and is not a plain number is written as text: a leading "'", quoted (OWASP CSV injection).
// kMarkdown: GitHub pipe table with an alignment row ("---" / "--:"); '|' in cells is escaped.
// kJson: an array with one object per row keyed by header, in header order. A cell of a
//   right-aligned column that is a plain number ("12", "-0.5", "1e9": no grouping commas, no unit)
//   becomes a JSON number, an empty cell becomes null, anything else stays a string.
std::string render(const Table& table, Format format);

// A table too long to hold, written a few rows at a time (kTable, kCsv, kMarkdown; not kJson):
// render() of a whole table is head() then rows() of its rows, piece by piece. Rows may have as
// many cells as the header, or as the widest row of the Table given. kTable pads each column to
// its widest cell, so every row is measure()d before head() (a first pass over them).
class TableWriter {
 public:
  // `t`: title, header and alignment; its rows count as measured.
  TableWriter(const Table& t, Format format);
  void measure(const std::vector<std::string>& row);
  std::string head() const;  // the title and header
  std::string rows(const std::vector<std::vector<std::string>>& rows) const;

 private:
  std::string line(const std::vector<std::string>& row) const;
  Table head_;
  Format format_;
  std::size_t columns_;
  std::vector<std::size_t> width_;  // kTable
};

// Each line of `text` prefixed with `spaces` spaces (empty lines stay empty); for nesting a
// rendered table under a section title.
std::string indent(const std::string& text, std::size_t spaces);

// Display width of UTF-8 text in columns (one per code point; no wide-character handling).
std::size_t display_width(const std::string& text);

}  // namespace aicost::report
