// The FOCUS checks that come from the requirements models rather than from hand: which columns a
// dataset must have, which may not be null, which must parse as a decimal, a date-time or a JSON
// object, and which take only listed values. The table is generated
// (tools/focus_rules/generate.py -> focus_rules.inc) from the FinOps Foundation's FOCUS 1.2 model
// and data/focus/model-1.3-additions.json; docs/LEDGER.md ("Validation rules") says what is taken.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dialect.h"

namespace aicost::billing::focus_rules {

enum class Dataset { kCostAndUsage, kContractCommitment };
enum class Kind { kAny, kDecimal, kDateTime, kJsonObject };

// What the models say of one column of one dataset. Empty rule ids: no such rule.
struct ColumnRule {
  Dataset dataset;
  std::string_view column;
  std::string_view since;           // "1.0" (in the 1.2 model: every version) or "1.3"
  std::string_view mandatory_rule;  // present in every file of version >= since
  std::string_view not_null_rule;   // never null
  Kind kind;
  std::string_view kind_rule;
  std::span<const std::string_view> allowed;  // empty: any value
  std::string_view allowed_rule;
};

// A column a version deprecates, and the one that replaces it.
struct DeprecatedColumn {
  std::string_view column, version, replaced_by;
};

std::span<const ColumnRule> column_rules();
// Whether a cell is a JSON object, braces and all (FOCUS KeyValueFormat).
bool is_json_object(std::string_view v);
std::span<const DeprecatedColumn> deprecated_columns();

// The mandatory columns of `dataset` at `version` ("1.2", "1.3") missing from the header, in
// name order.
std::vector<std::string_view> missing_mandatory(Dataset dataset, std::string_view version,
                                                const Columns& cols);

// Checks the cells of one file's rows against the rules of the columns its header has; each
// finding is a warning (the reader decides what a row needs to load), summarised per column and
// kind, naming the rule. Not thread-safe (one per read).
class RowChecker {
 public:
  enum class Scope {
    kAllowedValues,  // only the allowed values (files before FOCUS 1.3 keep the checks they had)
    kAll,            // nullability, types and allowed values
  };
  // `skip`: columns the reader checks itself (its amounts and times), left to it. `only`, when
  // not empty: the columns checked (the rest are not).
  void bind(Dataset dataset, const Columns& cols, Scope scope,
            std::span<const std::string_view> skip = {},
            std::span<const std::string_view> only = {});
  void check(const CsvRecord& r, IssueLog& log) const;

 private:
  struct Bound {
    int index;
    const ColumnRule* rule;
    bool check_null, check_kind;
  };
  std::vector<Bound> bound_;
};

}  // namespace aicost::billing::focus_rules
