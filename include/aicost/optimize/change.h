// A change to a plan, written as edits of its keys (docs/PLAN_FORMAT.md): the key's path
// ("parallelism.tensor_model_parallel_size", "pricing.mode") and its new value exactly as a user
// would write it, with its unit ("4", "reserved-1y", "45min", "true"), or no value to remove the
// key. The optimiser never edits typed structs: the caller turns a change into a plan file and
// estimates it (optimize.h's Evaluator), so what is priced is what `--emit-plan` writes.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace aicost::optimize {

struct Edit {
  std::string key;                   // "section.key" (a top-level key has no dot)
  std::optional<std::string> value;  // nullopt: remove the key
  bool operator==(const Edit&) const = default;
};

// Edits in order; a later edit of a key replaces an earlier one.
using Change = std::vector<Edit>;

// `first` then `then`: every key once, at the place it first appears, with its last value.
Change merge(const Change& first, const Change& then);

// "training.precision: fp8; pricing.gpu_hour: (removed)" for messages and tables.
std::string describe(const Change& change);

}  // namespace aicost::optimize
