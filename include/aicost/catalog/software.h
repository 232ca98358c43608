// Software eras: what a training stack of a given period did by default (attention kernel,
// sequence parallelism, distributed optimizer, communication overlap). data/software.yaml holds
// them with sources; a plan's `software:` key and the validation CSV's `software` column name one.
#pragma once

#include <string>
#include <vector>

#include "aicost/catalog/provenance.h"

namespace aicost::catalog {

struct SoftwareEra {
  std::string id;  // "megatron-2021", "nemo-2025", ...
  std::string description;
  bool flash_attention = false;    // fused (flash/cuDNN) attention; else unfused softmax kernels
  bool sequence_parallel = false;  // with TP > 1
  bool distributed_optimizer = false;  // optimizer states sharded over DP (ZeRO-1)
  bool overlap_grad_reduce = false;
  bool overlap_param_gather = false;
  bool tp_comm_overlap = false;  // TP collectives overlapped with GEMMs (userbuffers)
  Provenance provenance;
};

}  // namespace aicost::catalog
