#include "aicost/config/csv.h"

#include <csv.h>

namespace aicost::config {

namespace {

struct State {
  std::vector<std::string> fields;
  const std::function<core::Status(const std::vector<std::string>&, int)>* on_row;
  core::Status status;
  int line = 1;        // line the current record starts on
  int next_line = 1;   // line after the bytes consumed so far
};

void on_field(void* data, size_t len, void* state) {
  auto* s = static_cast<State*>(state);
  s->fields.emplace_back(static_cast<const char*>(data), len);
}

void on_record(int, void* state) {
  auto* s = static_cast<State*>(state);
  if (s->status) s->status = (*s->on_row)(s->fields, s->line);
  s->fields.clear();
}

}  // namespace

core::Status read_csv(std::string_view text, const std::string& origin,
                      const std::function<core::Status(const std::vector<std::string>&, int)>& on_row) {
  csv_parser p;
  if (csv_init(&p, CSV_STRICT | CSV_APPEND_NULL) != 0) {
    return core::make_error(core::ErrorCode::kInternal, "cannot initialise the CSV parser", origin);
  }
  State s;
  s.on_row = &on_row;
  // Feed line by line so that each record knows the line it started on.
  size_t pos = 0;
  bool in_record = false;
  while (pos < text.size() && s.status) {
    size_t end = text.find('\n', pos);
    end = end == std::string_view::npos ? text.size() : end + 1;
    if (!in_record) s.line = s.next_line;
    if (csv_parse(&p, text.data() + pos, end - pos, on_field, on_record, &s) != end - pos) {
      const int line = s.next_line;
      csv_free(&p);
      return core::make_error(core::ErrorCode::kParse,
                              std::string("malformed CSV: ") + csv_strerror(csv_error(&p)),
                              origin + ":" + std::to_string(line));
    }
    // A record continues while libcsv holds a partial field or fields of an open record.
    in_record = !s.fields.empty() || p.pstate != 0;
    ++s.next_line;
    pos = end;
  }
  if (s.status && csv_fini(&p, on_field, on_record, &s) != 0) {
    csv_free(&p);
    return core::make_error(core::ErrorCode::kParse, "malformed CSV: unterminated quoted field",
                            origin + ":" + std::to_string(s.line));
  }
  csv_free(&p);
  return s.status;
}

}  // namespace aicost::config
