// Owned GPUs: the effective price of a busy GPU-hour and the break-even against renting, checked
// against hand computations written out below (not against the code's own formulas).
#include "aicost/costing/owned.h"

#include <gtest/gtest.h>

namespace aicost::costing {
namespace {

using core::kilowatts;
using core::usd;
using core::usd_per_hour;
using core::usd_per_kw_month;
using core::usd_per_kwh;

// The worked example of ../shared/reference/tco.md ("How to combine"): one 8xH100 node in US
// colocation. Server 300,000 USD, fabric 53,000 USD, 5 years (43,800 h), 15 % residual on the
// server (none on the fabric), 70 % utilisation, 8.0 kW drawn every hour (busy or idle), PUE 1.3,
// 0.0806 USD/kWh, 10.2 kW contracted at 184.06 USD/kW-month, support 10 % of the server a year,
// staff 3.8 FTE/MW x 10.2 kW x 99,500 USD/year = 3,856.62 USD/year for this one-node cluster.
OwnedInputs tco_example() {
  OwnedInputs in;
  in.server = "example";
  in.gpus_per_server = 8;
  in.servers = 1;
  in.server_price = usd(300000);
  in.fabric = usd(53000);
  in.life = core::hours(43800);
  in.residual = 0.15;
  in.utilisation = 0.70;
  in.pue = 1.3;
  in.electricity = usd_per_kwh(0.0806);
  in.colocation = usd_per_kw_month(184.06);
  in.capacity = kilowatts(10.2);
  in.training_power = kilowatts(8.0);
  in.idle_power = kilowatts(8.0);
  in.support_per_year = 0.10;
  in.staff = core::UsdPerSecond(3.8 * 0.0102 * 99500 / core::kSecondsPerYear);
  return in;
}

double part(const OwnedRate& r, const std::string& name) {
  for (const auto& p : r.parts) {
    if (p.name == name) return core::per_hour(p.per_gpu);
  }
  ADD_FAILURE() << "no part " << name;
  return 0;
}

// Busy GPU-hours over the life: 43,800 h x 0.7 x 8 GPUs = 245,280; a year's: 8,760 x 0.7 x 8 =
// 49,056.
//   servers     300,000 x 0.85 / 245,280                         = 1.039628
//   fabric      53,000 / 245,280                                 = 0.216079
//   support     30,000 / 49,056                                  = 0.611546
//   colocation  10.2 kW x 184.06 / 730 h / (8 x 0.7)             = 2.571798 / 5.6 = 0.459250
//   staff       3,856.62 / 49,056                                = 0.078616
//   power       8 kW x 1.3 x 0.0806 / 8 = 0.104780 per busy GPU-hour (elastic), plus the idle
//               hours at the same draw: 0.104780 x 0.3 / 0.7 = 0.044906 (fixed)
//   total                                                        = 2.554805 (tco.md: "~2.56")
TEST(OwnedRate, MatchesTheWorkedExampleOfTheTcoSheet) {
  const OwnedRate r = owned_rate(tco_example());
  EXPECT_NEAR(part(r, "servers"), 1.039628, 1e-5);
  EXPECT_NEAR(part(r, "fabric"), 0.216079, 1e-5);
  EXPECT_NEAR(part(r, "support"), 0.611546, 1e-5);
  EXPECT_NEAR(part(r, "colocation"), 0.459250, 1e-5);
  EXPECT_NEAR(part(r, "staff"), 0.078616, 1e-5);
  EXPECT_NEAR(part(r, "power"), 0.104780, 1e-5);
  EXPECT_NEAR(part(r, "idle power"), 0.044906, 1e-5);
  EXPECT_NEAR(core::per_hour(r.per_gpu), 2.554805, 1e-5);
  // Only the power of busy hours is elastic.
  EXPECT_NEAR(core::per_hour(r.elastic), 0.104780, 1e-5);
  EXPECT_NEAR(core::per_hour(r.fixed), 2.554805 - 0.104780, 1e-5);
  EXPECT_NEAR(r.upfront.value(), 353000, 1e-6);
}

// Renting the busy hours on demand at 6.88 USD/GPU-h (AWS p5.4xlarge, 1 GPU):
//   rent per month      8 GPUs x 0.7 x 730 h x 6.88                  = 28,125.44 USD
//   running per month   support 30,000 / 12 = 2,500 + colocation 10.2 x 184.06 = 1,877.412
//                       + staff 3,856.62 / 12 = 321.385 + power 8 kW x 730 h x 1.3 x 0.0806
//                       = 611.915                                     = 5,310.712 USD
//   break-even          353,000 / (28,125.44 - 5,310.712)             = 15.4725 months
// and the utilisation at which a busy owned hour costs 6.88: every cost but busy power beyond
// idle (here 0, idle = busy) is fixed per wall-clock GPU-hour:
//   (308,000 / 43,800 + 30,000 / 8,760 + 1,877.412 / 730 + 3,856.62 / 8,760) / 8 + 0.104780
//   = (7.031963 + 3.424658 + 2.571797 + 0.440253) / 8 + 0.104780 = 1.788364; u = 1.788364 / 6.88
//   = 25.99 %.
// A one-year contract at 2.35 USD/GPU-h (tco.md §5, March 2026) is paid every hour:
//   8 x 730 x 2.35 = 13,724 a month; 353,000 / (13,724 - 5,310.712) = 41.957 months.
TEST(BreakEven, MonthsAndUtilisationByHand) {
  const OwnedInputs in = tco_example();
  const OwnedRate r = owned_rate(in);
  const BreakEven od =
      break_even(in, r, {"aws/p5.4xlarge", catalog::PricingMode::kOnDemand, usd_per_hour(6.88)});
  ASSERT_TRUE(od.months);
  EXPECT_NEAR(*od.months, 15.4725, 1e-3);
  ASSERT_TRUE(od.utilisation);
  EXPECT_NEAR(*od.utilisation, 1.788364 / 6.88, 1e-5);
  const BreakEven res =
      break_even(in, r, {"contract", catalog::PricingMode::kReserved1y, usd_per_hour(2.35)});
  ASSERT_TRUE(res.months);
  EXPECT_NEAR(*res.months, 41.957, 1e-3);
  EXPECT_FALSE(res.utilisation);  // a reservation is paid whether used or not
}

// At that utilisation the owned hour does cost the rental price (the closed form checked
// against the rate itself).
TEST(BreakEven, UtilisationMakesTheOwnedHourCostTheRent) {
  OwnedInputs in = tco_example();
  in.idle_power = kilowatts(2.0);  // so that busy power is partly elastic
  const auto od =
      break_even(in, owned_rate(in), {"x", catalog::PricingMode::kOnDemand, usd_per_hour(6.88)});
  ASSERT_TRUE(od.utilisation);
  in.utilisation = *od.utilisation;
  EXPECT_NEAR(core::per_hour(owned_rate(in).per_gpu), 6.88, 1e-9);
}

// Renting for less than the cluster's running costs never pays back; nor does an on-demand price
// below what a fully busy owned hour costs.
TEST(BreakEven, NeverWhenRentIsBelowRunningCosts) {
  const OwnedInputs in = tco_example();
  const auto b =
      break_even(in, owned_rate(in), {"x", catalog::PricingMode::kOnDemand, usd_per_hour(0.9)});
  EXPECT_FALSE(b.months);       // 8 x 0.7 x 730 x 0.9 = 3,679 < 5,311 a month
  EXPECT_FALSE(b.utilisation);  // 1.788 > 0.9 even at 100 %
}

// A cluster used 40 % of its life against the same cluster used fully: with idle hours drawn at
// the busy power every part is a cost of the wall-clock hour, so a busy hour costs 1 / 0.4 = 2.5
// times as much. With a 2 kW idle draw the busy power beyond idle, (8 - 2) x 1.3 x 0.0806 / 8 =
// 0.078585 USD, is paid per busy hour whatever the utilisation and does not scale.
TEST(OwnedRate, UtilisationFortyAgainstHundredPercent) {
  OwnedInputs in = tco_example();
  in.utilisation = 0.4;
  const double at40 = core::per_hour(owned_rate(in).per_gpu);
  in.utilisation = 1.0;
  const double at100 = core::per_hour(owned_rate(in).per_gpu);
  EXPECT_NEAR(at40 / at100, 2.5, 1e-12);

  in.idle_power = kilowatts(2.0);
  const double beyond_idle = 6.0 * 1.3 * 0.0806 / 8;
  in.utilisation = 0.4;
  const double idle40 = core::per_hour(owned_rate(in).per_gpu);
  in.utilisation = 1.0;
  const double idle100 = core::per_hour(owned_rate(in).per_gpu);
  EXPECT_NEAR(idle40 - beyond_idle, 2.5 * (idle100 - beyond_idle), 1e-9);
}

TEST(CheapestRentals, OnDemandAndReservedPerGpu) {
  catalog::Catalog cat;
  catalog::Instance a{"p/a8", "a8", "p", "h100", 8, "r", {}, {}};
  a.prices[static_cast<int>(catalog::PricingMode::kOnDemand)] = usd_per_hour(24);    // 3.00 a GPU
  a.prices[static_cast<int>(catalog::PricingMode::kReserved3y)] = usd_per_hour(16);  // 2.00
  catalog::Instance b{"p/b1", "b1", "p", "h100", 1, "r", {}, {}};
  b.prices[static_cast<int>(catalog::PricingMode::kOnDemand)] = usd_per_hour(2.5);
  b.prices[static_cast<int>(catalog::PricingMode::kReserved1y)] = usd_per_hour(2.1);
  catalog::Instance other{"p/c", "c", "p", "a100", 1, "r", {}, {}};
  other.prices[0] = usd_per_hour(0.5);
  cat.add(a);
  cat.add(b);
  cat.add(other);
  const auto r = cheapest_rentals(cat, "H100");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].instance, "p/b1");
  EXPECT_EQ(r[0].mode, catalog::PricingMode::kOnDemand);
  EXPECT_EQ(r[1].instance, "p/a8");
  EXPECT_EQ(r[1].mode, catalog::PricingMode::kReserved3y);
  EXPECT_NEAR(core::per_hour(r[1].per_gpu), 2.0, 1e-12);
  EXPECT_TRUE(cheapest_rentals(cat, "b200").empty());
}

}  // namespace
}  // namespace aicost::costing
