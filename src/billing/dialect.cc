#include "dialect.h"

#include <algorithm>
#include <unordered_map>

#include "aicost/core/text.h"

namespace aicost::billing {

Columns::Columns(const std::vector<std::string_view>& names) {
  for (auto n : names) {
    while (!n.empty() && (n.back() == ' ' || n.back() == '\r')) n.remove_suffix(1);
    while (!n.empty() && n.front() == ' ') n.remove_prefix(1);
    names_.emplace_back(n);
  }
}

int Columns::index_of(std::string_view w) const {
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == w) return static_cast<int>(i);
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (core::iequals(names_[i], w)) return static_cast<int>(i);
  return -1;
}

int Columns::find(std::initializer_list<std::string_view> wanted) const {
  int found = -1;
  for (auto w : wanted)
    for (std::size_t i = 0; i < names_.size() && found < 0; ++i)
      if (names_[i] == w) found = static_cast<int>(i);
  for (auto w : wanted)
    for (std::size_t i = 0; i < names_.size() && found < 0; ++i)
      if (core::iequals(names_[i], w)) found = static_cast<int>(i);
  mark_read(found);
  return found;
}

bool Columns::has(std::string_view name) const { return index_of(name) >= 0; }

void Columns::mark_read(int i) const {
  if (i < 0) return;
  if (read_.size() < names_.size()) read_.resize(names_.size());
  read_[static_cast<std::size_t>(i)] = true;
}

core::Status Columns::check_duplicates(IssueLog& log) const {
  std::unordered_map<std::string, std::vector<std::size_t>> by_name;
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (!names_[i].empty()) by_name[core::ascii_lower(names_[i])].push_back(i);
  std::vector<const std::vector<std::size_t>*> repeated;
  for (const auto& [name, at] : by_name)
    if (at.size() > 1) repeated.push_back(&at);
  std::sort(repeated.begin(), repeated.end(),
            [](auto* a, auto* b) { return a->front() < b->front(); });
  for (const auto* at : repeated) {
    std::string positions;
    bool read = false;
    for (std::size_t k = 0; k < at->size(); ++k) {
      positions += (k == 0                ? ""
                    : k + 1 == at->size() ? " and "
                                          : ", ") +
                   std::to_string((*at)[k] + 1);
      read = read || ((*at)[k] < read_.size() && read_[(*at)[k]]);
    }
    const std::string& name = names_[at->front()];
    const std::string what = "column " + quote_cell(name) + " appears " +
                             std::to_string(at->size()) + " times (columns " + positions + ")";
    if (read)
      return core::make_error(core::ErrorCode::kInvalidInput,
                              what +
                                  "; it is read, and which one holds the data is ambiguous: "
                                  "remove or rename all but one");
    log.note(name, what + "; it is not read, so this changes nothing");
  }
  return {};
}

std::vector<std::pair<int, std::string>> tag_columns(const Columns& cols, std::string_view prefix) {
  std::vector<std::pair<int, std::string>> out;
  for (std::size_t i = 0; i < cols.names().size(); ++i) {
    const auto& n = cols.names()[i];
    if (n.size() > prefix.size() && n.compare(0, prefix.size(), prefix) == 0) {
      out.emplace_back(static_cast<int>(i), n.substr(prefix.size()));
      cols.mark_read(static_cast<int>(i));
    }
  }
  return out;
}

TextColumns::TextColumns(const Columns& cols, std::span<const TextColumn> table) {
  columns_.reserve(table.size());
  for (const auto& t : table) {
    const auto& n = t.names;
    columns_.emplace_back(n[1].empty()   ? cols.find({n[0]})
                          : n[2].empty() ? cols.find({n[0], n[1]})
                                         : cols.find({n[0], n[1], n[2]}),
                          t.field);
  }
}

void TextColumns::read(const CsvRecord& r, ledger::Charge& c) const {
  for (const auto& [i, field] : columns_) c.*field = text_cell(r, i);
}

}  // namespace aicost::billing
