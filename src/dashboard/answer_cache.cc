#include "aicost/dashboard/answer_cache.h"

namespace aicost::dashboard {

std::shared_ptr<const Answer> AnswerCache::get(const std::string& state, const std::string& request,
                                               const std::function<Answer()>& make) {
  if (state.empty()) {
    {
      std::lock_guard lock(mu_);
      ++made_;
    }
    return std::make_shared<const Answer>(make());
  }
  std::promise<std::shared_ptr<const Answer>> promise;
  Shared shared;
  bool maker = false;
  std::uint64_t id = 0;
  {
    std::lock_guard lock(mu_);
    if (state != state_) {
      answers_.clear();  // the callers waiting on them hold their own copies of the futures
      state_ = state;
    }
    if (const auto it = answers_.find(request); it != answers_.end()) {
      shared = it->second.answer;
    } else {
      if (answers_.size() >= max_answers_) answers_.clear();
      shared = promise.get_future().share();
      id = ++made_;
      answers_.emplace(request, Entry{shared, id});
      maker = true;
    }
  }
  if (!maker) return shared.get();
  try {
    auto answer = std::make_shared<const Answer>(make());
    promise.set_value(answer);
    // A failure of the server (the ledger busy, a file unreadable) may pass: not kept.
    if (answer->status >= 500) forget(request, id);
    return answer;
  } catch (...) {
    promise.set_exception(std::current_exception());
    forget(request, id);
    throw;
  }
}

void AnswerCache::forget(const std::string& request, std::uint64_t id) {
  std::lock_guard lock(mu_);
  if (const auto it = answers_.find(request); it != answers_.end() && it->second.id == id)
    answers_.erase(it);
}

std::size_t AnswerCache::made() const {
  std::lock_guard lock(mu_);
  return made_;
}

}  // namespace aicost::dashboard
