#include "aicost/core/csv.h"

#include <cstring>

namespace aicost::core {
namespace {

bool blank(char c) { return c == ' ' || c == '\t'; }

}  // namespace

CsvStream::CsvStream(std::string origin, CsvRecordFn on_record)
    : origin_(std::move(origin)), on_record_(std::move(on_record)) {}

Status CsvStream::feed(std::string_view bytes) {
  buffer_.append(bytes);
  if (!started_) {  // a byte-order mark may arrive split over feeds
    static constexpr std::string_view kBom = "\xEF\xBB\xBF";
    if (buffer_.size() < kBom.size() && kBom.substr(0, buffer_.size()) == buffer_) return {};
    started_ = true;
    if (std::string_view(buffer_).substr(0, 3) == kBom) buffer_.erase(0, 3);
  }
  Status status;
  const std::size_t used = parse(false, status);
  buffer_.erase(0, used);
  return status;
}

Status CsvStream::finish() {
  Status status;
  const std::size_t used = parse(true, status);
  buffer_.erase(0, used);
  if (status && !buffer_.empty())
    return make_error_at(ErrorCode::kParse, "unterminated quoted field at the end of the file",
                         {origin_, static_cast<int>(line_), 0, ""});
  return status;
}

std::size_t CsvStream::parse(bool at_end, Status& status) {
  const char* const base = buffer_.data();
  const std::size_t size = buffer_.size();
  std::size_t pos = 0;  // start of the current record
  while (pos < size && status) {
    std::size_t i = pos;
    std::int64_t newlines = 0;  // inside quoted fields of this record
    std::size_t field_index = 0;
    record_.fields.clear();
    bool complete = false;
    for (;;) {
      // One field starting at i.
      while (i < size && blank(base[i])) ++i;
      if (i < size && base[i] == '"') {
        std::size_t j = i + 1;
        bool escaped = false;
        for (;;) {
          const void* q = std::memchr(base + j, '"', size - j);
          if (!q) {
            j = size;
            break;
          }
          j = static_cast<const char*>(q) - base;
          if (j + 1 < size && base[j + 1] == '"') {
            escaped = true;
            j += 2;
            continue;
          }
          break;
        }
        if (j >= size) break;  // the closing quote is not here yet
        for (std::size_t k = i + 1; k < j; ++k) newlines += base[k] == '\n';
        std::string_view inner(base + i + 1, j - i - 1);
        // Text between the closing quote and the separator is kept (lenient, as libcsv was).
        std::size_t k = j + 1;
        while (k < size && base[k] != ',' && base[k] != '\n' && base[k] != '\r') ++k;
        if (k >= size && !at_end) break;
        std::string_view trailing(base + j + 1, k - j - 1);
        while (!trailing.empty() && blank(trailing.back())) trailing.remove_suffix(1);
        if (escaped || !trailing.empty()) {
          if (unquoted_.size() <= field_index) unquoted_.resize(field_index + 1);
          auto& s = unquoted_[field_index];
          s.clear();
          for (std::size_t c = 0; c < inner.size(); ++c) {
            s.push_back(inner[c]);
            if (inner[c] == '"') ++c;  // "" -> "
          }
          s.append(trailing);
          inner = s;
        }
        record_.fields.push_back(inner);
        i = k;
      } else {
        std::size_t k = i;
        while (k < size && base[k] != ',' && base[k] != '\n' && base[k] != '\r') ++k;
        if (k >= size && !at_end) break;
        std::size_t e = k;
        while (e > i && blank(base[e - 1])) --e;
        record_.fields.emplace_back(base + i, e - i);
        i = k;
      }
      ++field_index;
      if (i >= size) {  // only at_end: the last record has no newline
        complete = true;
        break;
      }
      if (base[i] == ',') {
        ++i;
        if (i >= size && at_end) {
          record_.fields.emplace_back();
          complete = true;
          break;
        }
        continue;
      }
      // End of record: \n, \r\n or a lone \r.
      if (base[i] == '\r') {
        if (i + 1 >= size && !at_end) break;
        if (i + 1 < size && base[i + 1] == '\n') ++i;
      }
      ++i;
      ++newlines;
      complete = true;
      break;
    }
    if (!complete) break;
    const bool empty_line = record_.fields.size() == 1 && record_.fields[0].empty() && i - pos <= 2;
    record_.line = line_;
    record_.raw = std::string_view(base + pos, i - pos);
    if (!empty_line) status = on_record_(record_);
    line_ += newlines;
    pos = i;
  }
  return pos;
}

}  // namespace aicost::core
