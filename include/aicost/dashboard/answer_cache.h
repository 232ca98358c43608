// The answers of `aicost serve`, made once for each state of the ledger: a page or /api answer
// reads the whole period of the ledger (a report, a check), while the ledger changes only when a
// file is ingested. So each answer is kept, by its request (path and query), until the state its
// caller names changes; the requests that ask while it is being made wait for that one making.
//
// Thread safety: every member may be called from any thread at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace aicost::dashboard {

// A response as a handler made it.
struct Answer {
  int status = 200;
  std::string content_type;
  std::string body;
};

class AnswerCache {
 public:
  // At most `max_answers` are kept; past that the kept ones are dropped and kept anew.
  explicit AnswerCache(std::size_t max_answers = 256) : max_answers_(max_answers) {}

  // The answer to `request` in `state`: made by `make` by the first caller that asks for it in
  // that state, the others wait for it and share it. A caller with another state drops the
  // answers of the old one. `state` empty: nothing is kept (each caller makes its own). An answer
  // with status 500 or more is handed to the callers that waited for it and not kept, so the next
  // request tries again. An exception of `make` reaches every caller that waited for it.
  std::shared_ptr<const Answer> get(const std::string& state, const std::string& request,
                                    const std::function<Answer()>& make);

  // How many times `make` was called (kept answers are not counted when asked again).
  std::size_t made() const;

 private:
  using Shared = std::shared_future<std::shared_ptr<const Answer>>;
  struct Entry {
    Shared answer;
    std::uint64_t id;  // the making it came from (made_ then)
  };
  // Drops the answer to `request` if it is still the one of making `id`.
  void forget(const std::string& request, std::uint64_t id);

  const std::size_t max_answers_;
  mutable std::mutex mu_;  // guards the three below
  std::string state_;
  std::map<std::string, Entry> answers_;
  std::uint64_t made_ = 0;
};

}  // namespace aicost::dashboard
