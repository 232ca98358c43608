#include "aicost/report/catalog_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report_fixture.h"

namespace aicost::report {
namespace {

using nlohmann::json;

catalog::Catalog sample_catalog() {
  catalog::Catalog c;
  catalog::GpuSpec g;
  g.id = "test-gpu";
  g.name = "Test GPU";
  g.vendor = "nvidia";
  g.generation = "hopper";
  g.memory = core::gib(80);
  g.memory_bandwidth = core::BytesPerSecond(3.35e12);
  g.peak_dense[static_cast<int>(catalog::Precision::kBf16)] = core::tflops_per_s(989.5);
  g.scale_up_bandwidth = core::gb_per_s(450);
  g.scale_out_bandwidth = core::gbit_per_s(400);  // 50 GB/s
  g.tdp = core::watts(700);
  g.provenance.source = "vendor datasheet";
  g.provenance.date = "2024-01";
  c.add(g);
  catalog::Instance i;
  i.id = "cloud/8x";
  i.provider = "cloud";
  i.gpu = "test-gpu";
  i.gpus = 8;
  i.region = "us-east-1";
  i.prices[static_cast<int>(catalog::PricingMode::kOnDemand)] = core::usd_per_hour(98.32);
  i.provenance.source = "price page";
  i.provenance.date = "2025-02";
  c.add(i);
  c.add(testing::tiny_spec());
  catalog::ModelSpec broken = testing::tiny_spec();
  broken.id = "broken";
  broken.num_attention_heads = 0;
  c.add(broken);
  return c;
}

TEST(CatalogReport, GpusAsJsonHaveNumbersInTheirUnitsAndSource) {
  const json j = json::parse(render_gpus(sample_catalog(), Format::kJson));
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["id"], "test-gpu");
  EXPECT_DOUBLE_EQ(j[0]["memory_gib"].get<double>(), 80.0);
  EXPECT_DOUBLE_EQ(j[0]["hbm_tb_s"].get<double>(), 3.35);
  EXPECT_DOUBLE_EQ(j[0]["bf16_tflops"].get<double>(), 989.5);
  EXPECT_TRUE(j[0]["fp8_tflops"].is_null());  // no fp8 math in this spec
  EXPECT_DOUBLE_EQ(j[0]["scale_out_gb_s"].get<double>(), 50.0);
  EXPECT_EQ(j[0]["source"], "vendor datasheet");
  EXPECT_EQ(j[0]["date"], "2024-01");
}

TEST(CatalogReport, InstancesShowPricePerInstanceAndPerGpuHour) {
  const json j = json::parse(render_instances(sample_catalog(), Format::kJson));
  EXPECT_DOUBLE_EQ(j[0]["on_demand_usd_h"].get<double>(), 98.32);
  EXPECT_DOUBLE_EQ(j[0]["on_demand_usd_gpu_h"].get<double>(), 12.29);  // 98.32 / 8
  EXPECT_TRUE(j[0]["spot_usd_h"].is_null());
  EXPECT_EQ(j[0]["source"], "price page");
}

TEST(CatalogReport, ModelsShowParamsInBillionsWhenTheSpecIsValid) {
  const json j = json::parse(render_models(sample_catalog(), Format::kJson));
  ASSERT_EQ(j.size(), 2u);
  // 226,624 parameters (report_fixture.h) = 0.000227 B at three decimals = 0.000.
  EXPECT_DOUBLE_EQ(j[0]["params_b"].get<double>(), 0.0);
  EXPECT_EQ(j[0]["layers"], 2);
  EXPECT_TRUE(j[1]["params_b"].is_null());  // heads = 0 does not validate
  const std::string text = render_models(sample_catalog(), Format::kTable);
  EXPECT_NE(text.find("Models\nid "), std::string::npos) << text;
}

}  // namespace
}  // namespace aicost::report
