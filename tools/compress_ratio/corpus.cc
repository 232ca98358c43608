// The corpora of tools/compress_ratio. Tensors are laid out tensor by tensor, little-endian, as a
// torch or distributed checkpoint shard stores them; text is what a training job writes.
#include "corpus.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "aicost/core/rng.h"

namespace aicost::tools {

namespace {

// Element counts of a transformer layer's weights in units of h^2 (QKV 3, projection 1, MLP up 4,
// MLP down 4); the unit is 2^16 elements, so that a layer (12 units) is 1.5 MiB of bf16 and
// 10.5 MiB of checkpoint and a few MiB hold whole layers.
constexpr int kShape[] = {3, 1, 4, 4};
constexpr size_t kUnit = size_t{1} << 16;

// Log-uniform in [lo, hi].
double log_uniform(core::Rng& rng, double lo, double hi) {
  return std::exp(std::log(lo) + rng.uniform() * (std::log(hi) - std::log(lo)));
}

uint16_t to_bf16(float f) {  // round to nearest even, as torch's .to(torch.bfloat16)
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits += 0x7FFF + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

void put16(std::vector<uint8_t>& out, uint16_t v) {
  out.push_back(static_cast<uint8_t>(v));
  out.push_back(static_cast<uint8_t>(v >> 8));
}

void put32(std::vector<uint8_t>& out, float f) {
  uint32_t v;
  std::memcpy(&v, &f, 4);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// One tensor's worth of training state. Weights ~ N(0, sw^2), sw log-uniform in [0.004, 0.04]
// per tensor (Megatron's init_method_std 0.02, output layers 0.02/sqrt(2L), trained weights
// spread around it). Gradient scale sg log-uniform in [1e-5, 1e-3] per tensor; Adam's first
// moment m ~ N(0, (0.23 sg)^2) (an EMA with beta1 0.9 of iid gradients: sqrt(0.1/1.9) = 0.23);
// second moment v = sg^2 x lognormal(0, 1) per element (positive, heterogeneous across elements).
struct TensorState {
  std::vector<float> w, m, v;
};

TensorState draw_tensor(core::Rng& rng, size_t n, bool moments) {
  TensorState t;
  const double sw = log_uniform(rng, 0.004, 0.04);
  const double sg = log_uniform(rng, 1e-5, 1e-3);
  t.w.resize(n);
  for (auto& x : t.w) x = static_cast<float>(sw * rng.normal());
  if (moments) {
    t.m.resize(n);
    t.v.resize(n);
    for (auto& x : t.m) x = static_cast<float>(0.23 * sg * rng.normal());
    for (auto& x : t.v) x = static_cast<float>(sg * sg * std::exp(rng.normal()));
  }
  return t;
}

std::vector<uint8_t> tensors(Content content, size_t bytes, uint64_t seed) {
  core::Rng rng(seed);
  std::vector<uint8_t> out;
  out.reserve(bytes + 16 * kUnit * 4);
  for (size_t i = 0; out.size() < bytes; ++i) {
    const size_t n = kShape[i % 4] * kUnit;
    const bool moments = content != Content::kBf16Weights;
    const TensorState t = draw_tensor(rng, n, moments);
    // bf16 weights (2 B), then fp32 master weights, m and v (4 B each): 14 B per parameter in a
    // checkpoint, as reliability::kCheckpointBytesPerParam counts them.
    if (content != Content::kFp32Optimizer) {
      for (float x : t.w) put16(out, to_bf16(x));
    }
    if (content != Content::kBf16Weights) {
      for (float x : t.w) put32(out, x);
      for (float x : t.m) put32(out, x);
      for (float x : t.v) put32(out, x);
    }
  }
  out.resize(bytes);
  return out;
}

void append(std::string& s, const char* fmt, auto... args) {
  char buf[1024];
  const int n = std::snprintf(buf, sizeof buf, fmt, args...);
  s.append(buf, static_cast<size_t>(std::max(0, std::min(n, static_cast<int>(sizeof buf) - 1))));
}

// The wall clock of a step: 2026-03-01 00:00:00 plus `seconds`.
void timestamp(std::string& s, double seconds, const char* fmt) {
  const long t = static_cast<long>(seconds);
  const long day = t / 86400, rem = t % 86400;
  append(s, fmt, 1 + static_cast<int>(day % 28), static_cast<int>(rem / 3600),
         static_cast<int>(rem / 60 % 60), static_cast<int>(rem % 60));
}

// A training run's step metrics: loss decays from 11 towards 2 with noise, the learning rate
// warms up over 2,000 steps then follows a cosine, the step time wanders around 20 s.
struct Step {
  long iteration = 0;
  double seconds = 0, step_ms = 20017, loss = 11, lr = 0, grad_norm = 1, tflops = 163;
};

void next(core::Rng& rng, Step& s) {
  ++s.iteration;
  s.step_ms = 20017 * (1 + 0.004 * rng.normal());
  s.seconds += s.step_ms / 1000;
  s.loss = 2 + 9 * std::exp(-static_cast<double>(s.iteration) / 3000) + 0.03 * rng.normal();
  const double peak = 6e-5;
  s.lr = s.iteration < 2000 ? peak * s.iteration / 2000
                            : 6e-6 + 0.5 * (peak - 6e-6) *
                                         (1 + std::cos(3.14159265358979 * s.iteration / 95368.0));
  s.grad_norm = std::max(0.05, 0.35 + 0.08 * rng.normal() + (rng.uniform() < 0.002 ? 3 : 0));
  s.tflops = 163 * 20017 / s.step_ms;
}

// Megatron-LM's rank-0 stdout (megatron/training/training.py training_log, log_interval 1,
// log_throughput and timers on): an iteration line and a timers line per step, validation every
// 1,000 steps, a checkpoint save every 500; every 2,000 steps a restart whose NCCL_DEBUG=INFO
// lines for 64 ranks (8 nodes of the job) are collected with it. The values are drawn, the
// formats are Megatron's and NCCL's.
std::string training_log(size_t bytes, uint64_t seed) {
  core::Rng rng(seed);
  std::string s;
  Step st;
  while (s.size() < bytes) {
    next(rng, st);
    if (st.iteration % 2000 == 1) {
      for (int rank = 0; rank < 64; ++rank) {
        const int node = rank / 8, gpu = rank % 8, pid = 41000 + rank * 7;
        append(s, "gpu-node-%03d:%d:%d [%d] NCCL INFO cudaDriverVersion 12040\n", node, pid, pid,
               gpu);
        append(s, "gpu-node-%03d:%d:%d [%d] NCCL INFO Bootstrap : Using eth0:10.1.%d.%d<0>\n", node,
               pid, pid, gpu, node, 10 + gpu);
        append(s,
               "gpu-node-%03d:%d:%d [%d] NCCL INFO NET/IB : Using [0]mlx5_%d:1/IB ; OOB "
               "eth0:10.1.%d.%d<0>\n",
               node, pid, pid + 31, gpu, gpu, node, 10 + gpu);
        for (int ch = 0; ch < 8; ++ch) {
          append(s,
                 "gpu-node-%03d:%d:%d [%d] NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] via "
                 "P2P/IPC/read\n",
                 node, pid, pid + 35, gpu, ch, rank, gpu, (rank + 1) % 64, (gpu + 1) % 8);
        }
        append(s,
               "gpu-node-%03d:%d:%d [%d] NCCL INFO comm 0x%llx rank %d nRanks 1024 nNodes 128 "
               "localRanks 8 localRank %d MNNVL 0\n",
               node, pid, pid + 35, gpu,
               static_cast<unsigned long long>(0x55d4c0000000ULL + (rng.next_u64() & 0xffffff0ULL)),
               rank, gpu);
      }
    }
    timestamp(s, st.seconds, " [2026-03-%02d %02d:%02d:%02d]");
    append(
        s,
        " iteration %8ld/%8d | consumed samples: %12ld | elapsed time per iteration (ms): %.1f | "
        "throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size: %5d | "
        "lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations: %3d | "
        "number of nan iterations: %3d |\n",
        st.iteration, 95368, st.iteration * 1536, st.step_ms, st.tflops, st.lr, 1536, st.loss,
        st.grad_norm, 0, 0);
    const double fb = st.step_ms * (0.97 + 0.002 * rng.normal());
    append(s,
           "times across ranks (ms):\n  forward-backward ...............................: (%.2f, "
           "%.2f)\n"
           "  forward-compute ................................: (%.2f, %.2f)\n"
           "  backward-compute ...............................: (%.2f, %.2f)\n"
           "  batch-generator ................................: (%.2f, %.2f)\n"
           "  layernorm-grads-all-reduce .....................: (%.2f, %.2f)\n"
           "  embedding-grads-all-reduce .....................: (%.2f, %.2f)\n"
           "  all-grads-sync .................................: (%.2f, %.2f)\n"
           "  optimizer-copy-to-main-grad ....................: (%.2f, %.2f)\n"
           "  optimizer-clip-main-grad .......................: (%.2f, %.2f)\n"
           "  optimizer-count-zeros ..........................: (%.2f, %.2f)\n"
           "  optimizer-inner-step ...........................: (%.2f, %.2f)\n"
           "  optimizer-copy-main-to-model-params ............: (%.2f, %.2f)\n"
           "  optimizer ......................................: (%.2f, %.2f)\n",
           fb * 0.99, fb, fb * 0.31, fb * 0.33, fb * 0.62, fb * 0.64, 0.4 + rng.uniform(),
           2.1 + rng.uniform(), 0.02 + 0.01 * rng.uniform(), 0.05 + 0.01 * rng.uniform(),
           0.3 + 0.1 * rng.uniform(), 1.2 + 0.3 * rng.uniform(), 40 + 5 * rng.uniform(),
           46 + 5 * rng.uniform(), 3.1 + rng.uniform(), 3.4 + rng.uniform(), 2.2 + rng.uniform(),
           2.6 + rng.uniform(), 1.1 + rng.uniform(), 1.3 + rng.uniform(), 31 + 3 * rng.uniform(),
           34 + 3 * rng.uniform(), 4.1 + rng.uniform(), 4.5 + rng.uniform(), 49 + 4 * rng.uniform(),
           54 + 4 * rng.uniform());
    if (st.iteration % 1000 == 0) {
      const double val = st.loss + 0.05 + 0.01 * rng.normal();
      s += "---------------------------------------------------------------------------------------"
           "--------------------------\n";
      append(s, " validation loss at iteration %ld | lm loss value: %.6E | lm loss PPL: %.6E | \n",
             st.iteration, val, std::exp(val));
      s += "---------------------------------------------------------------------------------------"
           "--------------------------\n";
    }
    if (st.iteration % 500 == 0) {
      append(s,
             "saving checkpoint at iteration %8ld to /fsx/checkpoints/gpt3-175b in torch_dist "
             "format\n",
             st.iteration);
      append(s,
             "  successfully saved checkpoint from iteration %8ld to /fsx/checkpoints/gpt3-175b [ "
             "t 1/8, p 1/16 ]\n",
             st.iteration);
    }
  }
  s.resize(bytes);
  return s;
}

// Per-step metrics as a JSON line (what a metrics logger or an experiment tracker's offline
// file writes): step, loss, learning rate, grad norm, throughput, MFU, memory, timestamps.
std::string metrics_jsonl(size_t bytes, uint64_t seed) {
  core::Rng rng(seed);
  std::string s;
  Step st;
  while (s.size() < bytes) {
    next(rng, st);
    append(
        s,
        "{\"step\": %ld, \"timestamp\": %.3f, \"train/loss\": %.6f, \"train/lr\": %.6e, "
        "\"train/grad_norm\": %.5f, \"perf/step_time_s\": %.4f, \"perf/tokens_per_s\": %.1f, "
        "\"perf/tflops_per_gpu\": %.2f, \"perf/mfu\": %.4f, \"mem/allocated_gib\": %.2f, "
        "\"mem/reserved_gib\": %.2f, \"data/consumed_samples\": %ld, \"train/loss_scale\": 1.0}\n",
        st.iteration, 1772323200.0 + st.seconds, st.loss, st.lr, st.grad_norm, st.step_ms / 1000,
        1536 * 2048 / (st.step_ms / 1000), st.tflops, st.tflops / 312, 17.8 + 0.05 * rng.uniform(),
        20.3 + 0.1 * rng.uniform(), st.iteration * 1536);
  }
  s.resize(bytes);
  return s;
}

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

}  // namespace

const char* to_string(Content c) {
  switch (c) {
    case Content::kBf16Weights: return "bf16-weights";
    case Content::kFp32Optimizer: return "fp32-optimizer";
    case Content::kCheckpoint: return "checkpoint";
    case Content::kTrainingLog: return "training-log";
    case Content::kMetricsJsonl: return "metrics-jsonl";
  }
  return "?";
}

const std::vector<Content>& all_contents() {
  static const std::vector<Content> all = {Content::kBf16Weights, Content::kFp32Optimizer,
                                           Content::kCheckpoint, Content::kTrainingLog,
                                           Content::kMetricsJsonl};
  return all;
}

bool content_from_string(const std::string& name, Content& out) {
  for (Content c : all_contents()) {
    if (name == to_string(c)) {
      out = c;
      return true;
    }
  }
  return false;
}

std::vector<uint8_t> make_corpus(Content content, size_t bytes, uint64_t seed) {
  switch (content) {
    case Content::kTrainingLog: return bytes_of(training_log(bytes, seed));
    case Content::kMetricsJsonl: return bytes_of(metrics_jsonl(bytes, seed));
    default: return tensors(content, bytes, seed);
  }
}

}  // namespace aicost::tools
