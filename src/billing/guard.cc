#include "guard.h"

#include "aicost/core/text.h"

namespace aicost::billing {
namespace {

std::string count(std::size_t n) { return core::group_digits(static_cast<double>(n)); }

// A key or value as it may be quoted in a message: its first 40 bytes.
std::string shown(std::string_view s) {
  const auto head = core::utf8_prefix(s, 40);
  return "'" + std::string(head) + (head.size() < s.size() ? "...'" : "'");
}

}  // namespace

std::string repair_message(std::string_view text, std::string_view repaired) {
  const std::size_t at = core::utf8_first_bad(text);
  const auto byte = at < text.size() ? static_cast<unsigned char>(text[at]) : 0;
  std::string what =
      byte == 0 ? "a NUL byte (at byte " + std::to_string(at + 1) + ")"
                : core::sprintf("bytes that are not UTF-8 (0x%02X at byte %zu)", byte, at + 1);
  const auto head = core::utf8_prefix(repaired, 60);
  return "holds " + what + "; replaced by U+FFFD, the row is loaded: '" + std::string(head) +
         (head.size() < repaired.size() ? "...'" : "'");
}

std::string_view CellGuard::column_name(std::size_t i) const {
  return i < names_.size() ? std::string_view(names_[i]) : std::string_view();
}

const CsvRecord& CellGuard::header(const CsvRecord& r, IssueLog& log) {
  const CsvRecord* out = &r;
  for (auto f : r.fields)
    if (!core::utf8_clean(f)) {
      out = &repair(r, log, true);
      break;
    }
  names_.assign(out->fields.begin(), out->fields.end());
  return *out;
}

const CsvRecord* CellGuard::row(const CsvRecord& r, IssueLog& log) {
  // The fast path, nearly every row: the record's bytes are clean and too few for a cell over the
  // cap. Fields are those bytes (less quotes), so each is clean too.
  const bool clean_raw = core::utf8_clean(r.raw);
  if (clean_raw && r.raw.size() <= kMaxCellBytes) return &r;
  for (std::size_t i = 0; i < r.fields.size(); ++i) {
    const auto f = r.fields[i];
    if (f.size() > kMaxCellBytes) {
      const auto name = column_name(i);
      log.error(r.line, name.empty() ? "field " + std::to_string(i + 1) : std::string(name),
                "the cell holds " + count(f.size()) + " bytes; a cell may hold at most 1 MiB (" +
                    count(kMaxCellBytes) + " bytes); the row is rejected");
      return nullptr;
    }
  }
  // A bad byte of the record is in a field (separators, quotes and trimmed blanks are ASCII);
  // repair() finds which.
  return clean_raw ? &r : &repair(r, log, false);
}

const CsvRecord& CellGuard::repair(const CsvRecord& r, IssueLog& log, bool header) {
  repaired_.line = r.line;
  repaired_.fields.assign(r.fields.begin(), r.fields.end());
  std::size_t used = 0;
  for (std::size_t i = 0; i < r.fields.size(); ++i) {
    const auto f = r.fields[i];
    if (core::utf8_clean(f)) continue;
    if (used == storage_.size()) storage_.emplace_back();
    std::string& fixed = storage_[used++];
    fixed.clear();
    core::utf8_repair_append(f, fixed);
    repaired_.fields[i] = fixed;
    if (header) {
      log.warn(r.line, fixed,
               "the name of column " + std::to_string(i + 1) + " " + repair_message(f, fixed));
      continue;
    }
    const auto name = column_name(i);
    const std::string column = name.empty() ? "field " + std::to_string(i + 1) : std::string(name);
    log.warn_repeated(r.line, column, "utf8",
                      [&] { return column + " " + repair_message(f, fixed); });
  }
  return repaired_;
}

bool tags_within_caps(const std::vector<ledger::Tag>& tags, std::int64_t line,
                      std::string_view column, IssueLog& log) {
  if (tags.size() > kMaxTagsPerRow) {
    log.error(line, column,
              "the row has " + count(tags.size()) + " tags; a row may have at most " +
                  count(kMaxTagsPerRow) +
                  " (AWS allows 50 per resource, Azure 50, GCP 64 labels); the row is rejected");
    return false;
  }
  for (const auto& t : tags) {
    if (t.key.size() > kMaxTagKeyBytes) {
      log.error(line, column,
                "tag key " + shown(t.key) + " is " + count(t.key.size()) +
                    " bytes; a key may be at most " + count(kMaxTagKeyBytes) +
                    " bytes (AWS allows 128 characters, Azure 512); the row is rejected");
      return false;
    }
    if (t.value.size() > kMaxTagValueBytes) {
      log.error(line, column,
                "the value of tag " + shown(t.key) + " is " + count(t.value.size()) +
                    " bytes; a value may be at most " + count(kMaxTagValueBytes) +
                    " bytes (AWS and Azure allow 256 characters); the row is rejected");
      return false;
    }
  }
  return true;
}

}  // namespace aicost::billing
