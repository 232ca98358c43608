// A CSV export dialect (FOCUS, AWS CUR, Azure, GCP, OCI, OpenCost, OpenShift) and the header
// lookup the dialects share.
#pragma once

#include <array>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aicost/core/result.h"
#include "cells.h"

namespace aicost::billing {

// One CSV export dialect: the header sets up column positions, then each record maps to a Charge.
class CsvDialect {
 public:
  virtual ~CsvDialect() = default;
  // kParse/kInvalidInput when the file cannot be this format (a required column is missing).
  virtual core::Status header(const std::vector<std::string_view>& names, IssueLog& log) = 0;
  // false: the row is rejected (an error issue says why).
  virtual bool row(const CsvRecord& rec, ledger::Charge& out, IssueLog& log,
                   std::int64_t& rounded) = 0;
  // The further charges of the record row() read, one per call (an OpenShift pod's hour is a CPU
  // row and a memory row); false when there are no more. They share the first's tags.
  virtual bool next(ledger::Charge& /*out*/) { return false; }
  // Whether the last row() that returned false took its row without a charge and without an
  // error (an OpenShift labels report: its labels tag the other reports' rows), not rejected it.
  virtual bool absorbed() const { return false; }
  virtual std::string version() const = 0;
  // Where a row's tags come from, for the issue when they exceed the caps (guard.h).
  virtual std::string_view tags_column() const { return "Tags"; }
};

std::unique_ptr<CsvDialect> make_focus_dialect();
std::unique_ptr<CsvDialect> make_aws_cur_dialect();
std::unique_ptr<CsvDialect> make_azure_dialect();
std::unique_ptr<CsvDialect> make_gcp_dialect();
std::unique_ptr<CsvDialect> make_oci_dialect();
std::unique_ptr<CsvDialect> make_opencost_dialect();  // opencost.cc
struct DeliveryContext;
std::unique_ptr<CsvDialect> make_ocp_dialect(
    DeliveryContext* context);  // ocp.cc; context may be null

// Header lookup for dialects: exact name first, then case-insensitive.
class Columns {
 public:
  explicit Columns(const std::vector<std::string_view>& names);
  // Index of the first of `names` present; -1 if none. The column counts as read.
  int find(std::initializer_list<std::string_view> names) const;
  // Whether a column of that name is present, without reading it.
  bool has(std::string_view name) const;
  // Marks column i read (dialects that read columns by prefix, such as tags).
  void mark_read(int i) const;
  const std::vector<std::string>& names() const { return names_; }
  // Columns whose names are equal (ignoring case and surrounding spaces): an error naming both
  // positions when the dialect reads one of them (which one holds the cost?), else a warning.
  // Call at the end of header().
  core::Status check_duplicates(IssueLog& log) const;

 private:
  int index_of(std::string_view name) const;
  std::vector<std::string> names_;
  mutable std::vector<bool> read_;
};

// Columns named <prefix><key> (AWS resourceTags/user:team, OCI tags/ns.key): index and key;
// they count as read.
std::vector<std::pair<int, std::string>> tag_columns(const Columns& cols, std::string_view prefix);

// A column a dialect copies as written into a text field of the charge: the names it goes by in
// the export (the first present wins; unused ones "") and the field.
struct TextColumn {
  std::array<std::string_view, 3> names;
  std::string ledger::Charge::*field;
};

// A dialect's table of text columns, looked up once in header() and copied into each charge by
// row(): one table of member pointers instead of a member and an assignment per column.
class TextColumns {
 public:
  TextColumns() = default;
  // Looks up each column of `table` (a column found counts as read).
  TextColumns(const Columns& cols, std::span<const TextColumn> table);
  // Sets each field to its cell; "" for a null cell or a column the header lacks.
  void read(const CsvRecord& r, ledger::Charge& c) const;

 private:
  std::vector<std::pair<int, std::string ledger::Charge::*>> columns_;
};

}  // namespace aicost::billing
