// Private to billing: the FOCUS cost-and-usage columns the reader knows (focus.cc), by the
// version that introduced them, and those it checks itself rather than by the generated rules.
#pragma once

#include <array>
#include <string_view>

namespace aicost::billing {

// Columns by the version that introduced them (FOCUS_Spec v1.0, v1.1, v1.2 column tables).
inline constexpr std::array kFocus10 = {"AvailabilityZone",
                                        "BilledCost",
                                        "BillingAccountId",
                                        "BillingAccountName",
                                        "BillingCurrency",
                                        "BillingPeriodEnd",
                                        "BillingPeriodStart",
                                        "ChargeCategory",
                                        "ChargeClass",
                                        "ChargeDescription",
                                        "ChargeFrequency",
                                        "ChargePeriodEnd",
                                        "ChargePeriodStart",
                                        "CommitmentDiscountCategory",
                                        "CommitmentDiscountId",
                                        "CommitmentDiscountName",
                                        "CommitmentDiscountStatus",
                                        "CommitmentDiscountType",
                                        "ConsumedQuantity",
                                        "ConsumedUnit",
                                        "ContractedCost",
                                        "ContractedUnitPrice",
                                        "EffectiveCost",
                                        "InvoiceIssuerName",
                                        "ListCost",
                                        "ListUnitPrice",
                                        "PricingCategory",
                                        "PricingQuantity",
                                        "PricingUnit",
                                        "ProviderName",
                                        "PublisherName",
                                        "RegionId",
                                        "RegionName",
                                        "ResourceId",
                                        "ResourceName",
                                        "ResourceType",
                                        "ServiceCategory",
                                        "ServiceName",
                                        "SkuId",
                                        "SkuPriceId",
                                        "SubAccountId",
                                        "SubAccountName",
                                        "Tags"};
inline constexpr std::array kFocus11 = {
    "CapacityReservationId",  "CapacityReservationStatus", "CommitmentDiscountQuantity",
    "CommitmentDiscountUnit", "ServiceSubcategory",        "SkuMeter",
    "SkuPriceDetails"};
inline constexpr std::array kFocus12 = {"BillingAccountType",
                                        "InvoiceId",
                                        "PricingCurrency",
                                        "PricingCurrencyContractedUnitPrice",
                                        "PricingCurrencyEffectiveCost",
                                        "PricingCurrencyListUnitPrice",
                                        "SubAccountType"};
// FOCUS 1.3 (ratified December 2025): FOCUS_Spec specification/datasets/cost_and_usage/columns/
// columns.mdpp at 02645d23, the columns whose files say "Introduced (version) 1.3".
inline constexpr std::array kFocus13 = {
    "AllocatedMethodDetails", "AllocatedMethodId", "AllocatedResourceId", "AllocatedResourceName",
    "AllocatedTags",          "ContractApplied",   "HostProviderName",    "ServiceProviderName"};
// The reader checks these itself (amounts and times it parses): the generated rules leave them.
inline constexpr std::array<std::string_view, 8> kReaderChecked = {
    "BilledCost",        "EffectiveCost",   "ListCost",        "ContractedCost",
    "ChargePeriodStart", "ChargePeriodEnd", "PricingQuantity", "ConsumedQuantity"};

}  // namespace aicost::billing
