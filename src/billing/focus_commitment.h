// The FOCUS 1.3 Contract Commitment dataset as CSV: one row per term of a contract
// (include/aicost/ledger/commitment.h). Column presence, nullability, types and allowed values
// are the generated rules' (focus_rules.h); a row without what the ledger keys it by (ids,
// category, the four period bounds) is rejected with its line and column.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "aicost/ledger/commitment.h"
#include "cells.h"
#include "focus_rules.h"

namespace aicost::billing {

class CommitmentReader {
 public:
  // kInvalidInput when the header is no Contract Commitment dataset (no ContractCommitmentId).
  core::Status header(const std::vector<std::string_view>& names, IssueLog& log);
  // false: the row is rejected (an error issue says why).
  bool row(const CsvRecord& r, ledger::ContractCommitment& out, IssueLog& log,
           std::int64_t& rounded);

 private:
  int contract_ = -1, id_ = -1, category_ = -1, type_ = -1, description_ = -1, currency_ = -1,
      cost_ = -1, quantity_ = -1, unit_ = -1, start_ = -1, end_ = -1, contract_start_ = -1,
      contract_end_ = -1;
  focus_rules::RowChecker checker_;
};

}  // namespace aicost::billing
