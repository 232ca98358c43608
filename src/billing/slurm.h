// Slurm accounting as `sacct --parsable2` writes it: a header line naming the fields, then one
// line per job and per job step, fields separated by '|' (no quoting). Each job that held GPUs
// becomes usage rows, one per GPU type in its AllocTRES (gres/gpu:h100=8) and UTC day it ran on,
// with GPU-hours = GPUs x the part of Elapsed in that day and no price: the ingest prices them
// with a rate card (ledger/rate_card.h). A running job (End Unknown) ends at Start + Elapsed.
// With a NodeList column, the rows are also per node (the job's GPUs split evenly over its nodes,
// as Slurm allocates gres per node) and the resource id is "JOBID/NODE": its last segment is the
// host dcgm-exporter telemetry names, which joins the job to its GPUs' activity (idle GPUs in the
// waste scan, the run's activity in plan against actual).
//
// Read: JobID (or JobIDRaw), Start, AllocTRES, and Elapsed (or ElapsedRaw, or End); optional
// User, Account, Partition, End, State, Cluster, JobName, NodeList. Job steps (JobID 123.batch,
// 123.0, 123.extern) are skipped: a step runs inside its job's allocation, which the job's own row
// holds, so counting both would count the GPUs twice. Jobs that never started (Start Unknown/None)
// or held no GPU are skipped too; none of the skipped rows is an issue. Times are read as UTC:
// sacct writes the cluster's local time without a zone, so run it with TZ=UTC (docs/LEDGER.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cells.h"
#include "guard.h"
#include "text_reader.h"

namespace aicost::billing {

// Whether a first line is a sacct --parsable(2) header (pipe-separated, JobID and AllocTRES).
bool is_slurm_header(std::string_view first_line);

// AllocTRES's GPUs: count per type ("" for GPUs the string gives no type). `gres/gpu=N` is the
// total; typed entries (`gres/gpu:h100=N`, MIG profiles such as `gres/gpu:a100_1g.5gb=N`) split
// it, and GPUs of the total no typed entry names stay untyped. nullopt (with `why`) when a GPU
// entry's count is not a whole number.
struct GpuAllocation {
  std::vector<std::pair<std::string, std::int64_t>> by_type;  // in AllocTRES order, untyped last
  std::int64_t total = 0;
};
std::optional<GpuAllocation> parse_alloc_tres(std::string_view tres, std::string* why = nullptr);

// A Slurm hostlist ("gpu-a[01-03,07],login1") as host names, in order; ranges keep their
// zero-padding. nullopt for a list that is malformed or names over 4096 hosts.
std::optional<std::vector<std::string>> expand_hostlist(std::string_view list);

// Elapsed as sacct writes it: [D-]HH:MM:SS, MM:SS or MM:SS.mmm; seconds, or nullopt.
std::optional<std::int64_t> parse_elapsed(std::string_view text);

class SlurmReader final : public TextReader {
 public:
  SlurmReader(const Sink& sink, IssueLog& log) : sink_(sink), log_(log) {}
  core::Status feed(std::string_view bytes) override;
  core::Status finish() override;
  std::int64_t records() const override { return records_; }
  std::int64_t loaded() const override { return loaded_; }
  std::int64_t rejected() const override { return rejected_; }

 private:
  core::Status line(std::string_view text);
  core::Status header(const CsvRecord& r);
  core::Status row(const CsvRecord& r);
  bool reject(std::int64_t line, std::string_view column, std::string message);

  const Sink& sink_;
  IssueLog& log_;
  CellGuard guard_;
  std::string partial_;
  CsvRecord record_;
  std::int64_t line_no_ = 0, records_ = 0, loaded_ = 0, rejected_ = 0;
  bool header_seen_ = false;
  std::size_t header_size_ = 0;
  int job_ = -1, user_ = -1, account_ = -1, partition_ = -1, start_ = -1, end_ = -1, elapsed_ = -1,
      elapsed_raw_ = -1, tres_ = -1, state_ = -1, cluster_ = -1, name_ = -1, nodes_ = -1;
  std::vector<std::string> hosts_;  // the row's NodeList, expanded
  ledger::Charge charge_;
};

}  // namespace aicost::billing
