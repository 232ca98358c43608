// Private to report: the one JSON type of every renderer, and how a document becomes text.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace aicost::report {

using Json = nlohmann::ordered_json;

// `indent` as nlohmann's dump (-1: one line). Bytes that are not UTF-8 (a file name, or text that
// reached a report some other way than the billing readers, which repair what they load) come
// out as U+FFFD instead of throwing.
template <class J>
std::string json_text(const J& j, int indent = 2) {
  return j.dump(indent, ' ', false, J::error_handler_t::replace);
}

}  // namespace aicost::report
