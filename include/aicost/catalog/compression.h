// Measured compression of the data a training run keeps and ships (data/compression.yaml,
// measured by tools/compress_ratio): what a codec at a level makes of one kind of content, on one
// core. Each figure keeps the command that measured it, so anyone can run it again.
#pragma once

#include <string>

#include "aicost/catalog/provenance.h"
#include "aicost/core/quantity.h"

namespace aicost::catalog {

struct CompressionFigure {
  std::string id;       // "zstd-3/checkpoint": codec name / content
  std::string codec;    // "zstd-3": the name a plan writes (storage.checkpoint_compression, ...)
  std::string content;  // bf16-weights | fp32-optimizer | checkpoint | training-log | metrics-jsonl
  double ratio = 1;     // compressed bytes / bytes
  core::BytesPerSecond compress_per_core;
  core::BytesPerSecond decompress_per_core;
  std::string command;    // how it was measured (tools/compress_ratio's command line)
  Provenance provenance;  // source: the method; date: when measured
};

// Defaults of the compression levers (data/compression.yaml `compression_defaults`).
struct CompressionDefaults {
  int checkpoint_cores_per_node = 0;  // cores a node gives to checkpoint compression
  Provenance provenance;
};

}  // namespace aicost::catalog
