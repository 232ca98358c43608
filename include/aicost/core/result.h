// Result<T> and Error: recoverable failures as values (a small std::expected subset; gcc 12 has
// none).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace aicost::core {

// Closed set of failure kinds. The CLI maps them to exit codes (see apps/aicost/main.cc).
enum class ErrorCode {
  kInvalidInput,  // a value is present but wrong (negative size, indivisible parallelism, bad unit)
  kNotFound,      // a named entry (GPU, model, instance, key) does not exist
  kParse,         // malformed YAML/JSON/CSV
  kIo,            // a file cannot be read or written
  kInfeasible,    // the plan is well-formed but cannot run (does not fit in memory)
  kInternal,      // a bug: an invariant of aicost itself failed
  kCancelled,     // the caller asked a long computation to stop (Ctrl-C in Python)
};

const char* to_string(ErrorCode code);
// Stable snake_case name for machine-readable output: "invalid_input", "not_found", ...
const char* code_name(ErrorCode code);

// message: one sentence saying what is wrong and what to do about it.
// context: where (file:line:col, key path, or the offending value); may be empty.
// Where in an input file an error is, for programs (`-o json` errors carry file, line and column)
// and for people (the excerpt: the line quoted and a caret under the column).
struct SourceLocation {
  std::string file;
  int line = 0;         // 1-based; 0 when unknown
  int column = 0;       // 1-based; 0 when unknown or the whole line is meant
  std::string excerpt;  // "    the line\n    ^" (each line indented by 4), or empty
  // "file:line:column", "file:line" or "file".
  std::string text() const;
};

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  std::string context;
  std::optional<SourceLocation> location;  // set when the error is at a place in an input file

  // "context: message" (or just message when context is empty), then the excerpt on its own lines.
  std::string what() const;
  // Prefixes context with `outer` ("outer: context"); used as an error travels outwards.
  Error with_context(const std::string& outer) const;
};

inline Error make_error(ErrorCode code, std::string message, std::string context = {}) {
  return Error{code, std::move(message), std::move(context), std::nullopt};
}

// An error at a place in a file: the context is the location's text.
inline Error make_error_at(ErrorCode code, std::string message, SourceLocation where) {
  std::string context = where.text();
  return Error{code, std::move(message), std::move(context), std::move(where)};
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Result<void>: success or an Error.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT

  bool has_value() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace aicost::core

// Propagates an error from an expression returning Result<...>; otherwise yields nothing.
#define AICOST_TRY_STATUS(expr)                          \
  do {                                                   \
    if (auto aicost_status_ = (expr); !aicost_status_) { \
      return aicost_status_.error();                     \
    }                                                    \
  } while (false)
