#include "focus_commitment.h"

namespace aicost::billing {

core::Status CommitmentReader::header(const std::vector<std::string_view>& names, IssueLog& log) {
  Columns cols(names);
  auto col = [&](std::string_view n) { return cols.find({n}); };
  id_ = col("ContractCommitmentId");
  if (id_ < 0)
    return core::make_error(core::ErrorCode::kInvalidInput,
                            "not a FOCUS Contract Commitment file: no ContractCommitmentId column");
  contract_ = col("ContractId");
  category_ = col("ContractCommitmentCategory");
  type_ = col("ContractCommitmentType");
  description_ = col("ContractCommitmentDescription");
  currency_ = col("BillingCurrency");
  cost_ = col("ContractCommitmentCost");
  quantity_ = col("ContractCommitmentQuantity");
  unit_ = col("ContractCommitmentUnit");
  start_ = col("ContractCommitmentPeriodStart");
  end_ = col("ContractCommitmentPeriodEnd");
  contract_start_ = col("ContractPeriodStart");
  contract_end_ = col("ContractPeriodEnd");
  std::string missing;
  for (auto n :
       focus_rules::missing_mandatory(focus_rules::Dataset::kContractCommitment, "1.3", cols))
    missing += std::string(missing.empty() ? "" : ", ") + std::string(n);
  if (!missing.empty())
    log.note("", "mandatory FOCUS Contract Commitment columns missing: " + missing);
  // The cells the reader parses or requires itself (keys, amount, quantity, times) are left to it.
  static constexpr std::string_view kOwn[] = {"ContractCommitmentId",
                                              "ContractId",
                                              "ContractCommitmentCategory",
                                              "ContractCommitmentCost",
                                              "ContractCommitmentQuantity",
                                              "ContractCommitmentPeriodStart",
                                              "ContractCommitmentPeriodEnd",
                                              "ContractPeriodStart",
                                              "ContractPeriodEnd"};
  checker_.bind(focus_rules::Dataset::kContractCommitment, cols,
                focus_rules::RowChecker::Scope::kAll, kOwn);
  return cols.check_duplicates(log);
}

bool CommitmentReader::row(const CsvRecord& r, ledger::ContractCommitment& c, IssueLog& log,
                           std::int64_t& rounded) {
  c = {};
  c.line = r.line;
  checker_.check(r, log);
  bool ok = true;
  auto required_text = [&](int i, const char* column, std::string& out) {
    out = text_cell(r, i);
    if (out.empty()) {
      log.error(r.line, column, std::string(column) + " is null; FOCUS requires a value");
      ok = false;
    }
  };
  required_text(id_, "ContractCommitmentId", c.commitment_id);
  required_text(contract_, "ContractId", c.contract_id);
  required_text(category_, "ContractCommitmentCategory", c.category);
  c.type = text_cell(r, type_);
  c.description = text_cell(r, description_);
  c.unit = text_cell(r, unit_);
  auto time = [&](int i, const char* column, ledger::UnixSeconds& out) {
    if (auto t = required_time(r, i, column, log))
      out = *t;
    else
      ok = false;
  };
  time(start_, "ContractCommitmentPeriodStart", c.commitment_start);
  time(end_, "ContractCommitmentPeriodEnd", c.commitment_end);
  time(contract_start_, "ContractPeriodStart", c.contract_start);
  time(contract_end_, "ContractPeriodEnd", c.contract_end);
  c.currency = currency_cell(r, currency_, "BillingCurrency", log);
  if (cost_ >= 0) {
    const auto v = amount_cell(r, cost_, "ContractCommitmentCost", log, rounded);
    if (v.value)
      c.cost = v.value;
    else if (!v.null) {
      log.error(r.line, "ContractCommitmentCost", v.why_not());
      ok = false;
    }
  }
  c.quantity = quantity_cell(r, quantity_, "ContractCommitmentQuantity", log);
  // ContractCommitmentCost MUST NOT be null when ContractCommitmentQuantity is, and the other way
  // round (contractcommitmentcost.md, contractcommitmentquantity.md): a term of neither commits
  // to nothing the ledger could follow.
  if (ok && !c.cost && !c.quantity) {
    log.error(r.line, "ContractCommitmentCost",
              "ContractCommitmentCost and ContractCommitmentQuantity are both null; FOCUS requires "
              "one of them");
    ok = false;
  }
  return ok;
}

}  // namespace aicost::billing
