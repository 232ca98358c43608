// "Did you mean" suggestions for misspelt keys and names (after ninja src/edit_distance.cc).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aicost::core {

// Levenshtein distance, case-insensitive.
int edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, if it is close enough to be a plausible typo
// (distance <= max(2, |word| / 3)); ties go to the earlier candidate.
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates);

// " Did you mean 'x'?" or "" — ready to append to an error message.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace aicost::core
