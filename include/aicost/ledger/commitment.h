// One row of a FOCUS 1.3 Contract Commitment dataset: a term of a contract between a provider
// and a customer, to spend an amount or use a quantity within a period. The cost-and-usage rows
// that count towards it name it in ContractApplied (ContractCommitmentId). Names are the FOCUS
// columns in snake_case (FOCUS_Spec specification/datasets/contract_commitment/dataset.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "aicost/ledger/charge.h"

namespace aicost::ledger {

struct ContractCommitment {
  std::int64_t line = 0;             // 1-based line in the source file where the row starts
  std::string contract_id;           // ContractId
  std::string commitment_id;         // ContractCommitmentId (unique within the provider)
  std::string category;              // ContractCommitmentCategory: "Spend" or "Usage"
  std::string type;                  // ContractCommitmentType: the provider's display name
  std::string description;           // ContractCommitmentDescription; "" when null
  std::string currency;              // BillingCurrency, ISO 4217; "XXX" when null
  std::optional<std::int64_t> cost;  // ContractCommitmentCost, exact nano-units of `currency`
  std::optional<double> quantity;    // ContractCommitmentQuantity, in `unit`
  std::string unit;                  // ContractCommitmentUnit; "" when null
  UnixSeconds commitment_start = 0,
              commitment_end = 0;  // ContractCommitmentPeriodStart/End [start, end)
  UnixSeconds contract_start = 0, contract_end = 0;  // ContractPeriodStart/End [start, end)
};

}  // namespace aicost::ledger
