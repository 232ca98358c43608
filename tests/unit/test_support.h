// Helpers shared by the unit tests of every module: the shipped catalog, and small model specs.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "aicost/catalog/catalog.h"
#include "aicost/catalog/model_spec.h"
#include "aicost/config/catalog_loader.h"

namespace aicost::testing {

// The shipped catalog, loaded once per test binary.
inline const catalog::Catalog& builtin_catalog() {
  static const catalog::Catalog c = [] {
    auto r = config::load_builtin_catalog();
    EXPECT_TRUE(r) << (r ? "" : r.error().what());
    return r ? *r : catalog::Catalog{};
  }();
  return c;
}

// A dense transformer with MHA and a GeLU MLP of width `ffn`.
inline catalog::ModelSpec dense_spec(int layers, int hidden, int heads, int ffn, int vocab) {
  catalog::ModelSpec s;
  s.id = "test-dense";
  s.num_layers = layers;
  s.hidden_size = hidden;
  s.num_attention_heads = heads;
  s.ffn_hidden_size = ffn;
  s.vocab_size = vocab;
  s.activation = catalog::Activation::kGelu;
  return s;
}

// The classic GPT block of Korthikanti et al. 2022: MHA, GeLU, f = 4h, dropout.
inline catalog::ModelSpec classic_gpt(int layers, int hidden, int heads, int vocab = 51200) {
  catalog::ModelSpec s = dense_spec(layers, hidden, heads, 4 * hidden, vocab);
  s.id = "classic";
  s.hidden_dropout = true;
  return s;
}

// A complete small plan (GPT-3 175B shape, 8 H100, a plain price); tests append sections to it.
inline std::string minimal_plan_yaml() {
  return R"(model:
  preset: gpt3-175b
training:
  tokens: 1B
  seq_length: 2048
  global_batch_size: 64
cluster:
  gpu: h100-sxm-80gb
  gpus: 8
pricing:
  gpu_hour: 2.00USD/h
)";
}

}  // namespace aicost::testing
