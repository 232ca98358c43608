// sacct --parsable2 (Slurm accounting) into unpriced GPU usage rows; slurm.h has the contract.
// Field names and forms: the sacct man page (https://slurm.schedmd.com/sacct.html: --parsable2,
// --format fields JobID, AllocTRES, Elapsed "[days-]hours:minutes:seconds[.microseconds]").
#include "slurm.h"

#include <algorithm>
#include <charconv>

#include "dialect.h"

namespace aicost::billing {
namespace {

constexpr std::string_view kGpu = "gres/gpu";

std::optional<std::int64_t> whole(std::string_view s) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

// sacct's words for a time it does not have.
bool no_time(std::string_view v) {
  return v.empty() || v == "Unknown" || v == "None" || v == "N/A";
}

std::string hours_text(double h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", h);
  return buf;
}

}  // namespace

bool is_slurm_header(std::string_view first_line) {
  const auto has = [&](std::string_view name) {
    for (std::size_t at = first_line.find(name); at != std::string_view::npos;
         at = first_line.find(name, at + 1)) {
      const bool left = at == 0 || first_line[at - 1] == '|';
      const std::size_t after = at + name.size();
      const bool right =
          after == first_line.size() || first_line[after] == '|' || first_line[after] == '\r';
      if (left && right) return true;
    }
    return false;
  };
  return (has("JobID") || has("JobIDRaw")) && has("AllocTRES");
}

std::optional<GpuAllocation> parse_alloc_tres(std::string_view tres, std::string* why) {
  GpuAllocation out;
  std::optional<std::int64_t> total;
  std::int64_t typed = 0;
  while (!tres.empty()) {
    const auto comma = tres.find(',');
    const std::string_view item = tres.substr(0, comma);
    tres = comma == std::string_view::npos ? std::string_view{} : tres.substr(comma + 1);
    const auto eq = item.find('=');
    const std::string_view name = item.substr(0, eq);
    if (name.substr(0, kGpu.size()) != kGpu || eq == std::string_view::npos) continue;
    const std::string_view rest = name.substr(kGpu.size());
    if (!rest.empty() && rest[0] != ':') continue;  // gres/gpumem, gres/gpuutil: not GPUs
    const auto count = whole(item.substr(eq + 1));
    if (!count) {
      if (why) *why = "'" + std::string(item) + "' does not give a whole number of GPUs";
      return std::nullopt;
    }
    if (rest.empty()) {
      total = *count;
    } else if (*count > 0) {
      out.by_type.emplace_back(std::string(rest.substr(1)), *count);
      typed += *count;
    }
  }
  out.total = std::max(total.value_or(typed), typed);
  if (out.total > typed) out.by_type.emplace_back(std::string(), out.total - typed);
  return out;
}

std::optional<std::vector<std::string>> expand_hostlist(std::string_view list) {
  constexpr std::size_t kMaxHosts = 4096;
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < list.size()) {
    // One entry: a prefix, optionally one [ranges] group, optionally a suffix; ends at a comma
    // outside brackets.
    const std::size_t start = i;
    std::size_t end = i, open = std::string_view::npos, close = std::string_view::npos;
    for (; end < list.size() && list[end] != ','; ++end) {
      if (list[end] != '[') continue;
      if (open != std::string_view::npos)
        return std::nullopt;  // two groups: not a form sacct writes
      open = end;
      close = list.find(']', end);
      if (close == std::string_view::npos) return std::nullopt;
      end = close;
    }
    const std::string_view entry = list.substr(start, end - start);
    i = end + 1;
    if (entry.empty()) continue;
    if (open == std::string_view::npos) {
      out.emplace_back(entry);
    } else {
      const std::string_view prefix = list.substr(start, open - start);
      const std::string_view ranges = list.substr(open + 1, close - open - 1);
      const std::string_view suffix = list.substr(close + 1, end - close - 1);
      for (std::size_t at = 0; at <= ranges.size();) {
        const auto comma = std::min(ranges.find(',', at), ranges.size());
        const std::string_view range = ranges.substr(at, comma - at);
        at = comma + 1;
        const auto dash = range.find('-');
        const std::string_view lo_text = range.substr(0, dash);
        const std::string_view hi_text =
            dash == std::string_view::npos ? lo_text : range.substr(dash + 1);
        const auto lo = whole(lo_text), hi = whole(hi_text);
        if (!lo || !hi || *hi < *lo || *hi - *lo >= static_cast<std::int64_t>(kMaxHosts))
          return std::nullopt;
        for (std::int64_t n = *lo; n <= *hi; ++n) {
          std::string digits = std::to_string(n);
          if (digits.size() < lo_text.size()) digits.insert(0, lo_text.size() - digits.size(), '0');
          out.push_back(std::string(prefix) + digits + std::string(suffix));
          if (out.size() > kMaxHosts) return std::nullopt;
        }
      }
    }
    if (out.size() > kMaxHosts) return std::nullopt;
  }
  return out;
}

std::optional<std::int64_t> parse_elapsed(std::string_view t) {
  std::int64_t days = 0;
  if (const auto dash = t.find('-'); dash != std::string_view::npos) {
    const auto d = whole(t.substr(0, dash));
    if (!d) return std::nullopt;
    days = *d;
    t.remove_prefix(dash + 1);
  }
  if (const auto dot = t.find('.'); dot != std::string_view::npos) {
    if (!whole(t.substr(dot + 1))) return std::nullopt;
    t = t.substr(0, dot);  // microseconds: below what a GPU-hour notices
  }
  std::int64_t parts[3] = {0, 0, 0};
  int n = 0;
  while (true) {
    const auto colon = t.find(':');
    const auto v = whole(t.substr(0, colon));
    if (!v || n == 3) return std::nullopt;
    parts[n++] = *v;
    if (colon == std::string_view::npos) break;
    t.remove_prefix(colon + 1);
  }
  if (n < 2) return std::nullopt;
  const std::int64_t h = n == 3 ? parts[0] : 0, m = parts[n - 2], s = parts[n - 1];
  if (m >= 60 || s >= 60) return std::nullopt;
  // Far past any real job (the reader refuses over ten years); bounded here so the sum cannot
  // overflow.
  constexpr std::int64_t kMaxDays = 366'000;
  if (days > kMaxDays || h > kMaxDays * 24) return std::nullopt;
  return ((days * 24 + h) * 60 + m) * 60 + s;
}

core::Status SlurmReader::feed(std::string_view bytes) {
  return split_lines(bytes, partial_, line_no_, "sacct output",
                     [this](std::string_view l) { return line(l); });
}

core::Status SlurmReader::finish() {
  if (!partial_.empty()) {
    auto s = line(partial_);
    partial_.clear();
    if (!s) return s;
  }
  if (!header_seen_) return core::make_error(core::ErrorCode::kInvalidInput, "the file is empty");
  return {};
}

core::Status SlurmReader::line(std::string_view text) {
  ++line_no_;
  record_.line = line_no_;
  record_.raw = text;
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  if (line_no_ == 1 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  if (header_seen_ && text.empty()) return {};
  record_.fields.clear();
  for (std::size_t start = 0;;) {
    const auto bar = text.find('|', start);
    record_.fields.push_back(text.substr(start, bar - start));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  // --parsable (not 2) ends every line with a '|'.
  if (record_.fields.size() > 1 && record_.fields.back().empty()) record_.fields.pop_back();
  if (!header_seen_) return header(guard_.header(record_, log_));
  ++records_;
  const CsvRecord* r = guard_.row(record_, log_);
  if (!r) {
    ++rejected_;
    return {};
  }
  return row(*r);
}

core::Status SlurmReader::header(const CsvRecord& r) {
  header_seen_ = true;
  header_size_ = r.fields.size();
  Columns cols(r.fields);
  job_ = cols.find({"JobID", "JobIDRaw"});
  tres_ = cols.find({"AllocTRES"});
  start_ = cols.find({"Start"});
  elapsed_raw_ = cols.find({"ElapsedRaw"});
  elapsed_ = cols.find({"Elapsed"});
  end_ = cols.find({"End"});
  std::string missing;
  for (const auto& [index, name] :
       {std::pair{job_, "JobID"}, {tres_, "AllocTRES"}, {start_, "Start"}})
    if (index < 0) missing += std::string(missing.empty() ? "" : ", ") + name;
  if (missing.empty() && elapsed_raw_ < 0 && elapsed_ < 0 && end_ < 0) missing = "Elapsed (or End)";
  if (!missing.empty())
    return core::make_error(
        core::ErrorCode::kInvalidInput,
        "not sacct --parsable2 output aicost can read: no " + missing +
            " column; run sacct --parsable2 --allusers "
            "--format=JobID,User,Account,Partition,Start,End,Elapsed,AllocTRES,NodeList,State",
        "line 1");
  user_ = cols.find({"User"});
  account_ = cols.find({"Account"});
  partition_ = cols.find({"Partition"});
  state_ = cols.find({"State"});
  cluster_ = cols.find({"Cluster"});
  name_ = cols.find({"JobName"});
  nodes_ = cols.find({"NodeList"});
  return cols.check_duplicates(log_);
}

bool SlurmReader::reject(std::int64_t line, std::string_view column, std::string message) {
  log_.error(line, column, std::move(message));
  ++rejected_;
  return false;
}

core::Status SlurmReader::row(const CsvRecord& r) {
  if (r.fields.size() != header_size_) {
    reject(r.line, "",
           "the line has " + std::to_string(r.fields.size()) + " fields, the header " +
               std::to_string(header_size_) + " (a '|' inside a field?)");
    return {};
  }
  const std::string_view job = cell(r, job_);
  if (job.empty()) {
    reject(r.line, "JobID", "no job id");
    return {};
  }
  // A step (123.batch, 123.0, 123.extern) runs inside its job's allocation: the job's row counts
  // it.
  if (job.find('.') != std::string_view::npos) return {};
  const std::string_view start_text = cell(r, start_);
  if (no_time(start_text)) return {};  // never started: no usage
  std::string why;
  const auto gpus = parse_alloc_tres(cell(r, tres_), &why);
  if (!gpus) {
    reject(r.line, "AllocTRES", why);
    return {};
  }
  if (gpus->total == 0) return {};  // a CPU job
  bool out_of_range = false;
  const auto start = parse_datetime(start_text, nullptr, &out_of_range);
  if (!start) {
    reject(r.line, "Start", not_a_datetime(start_text, out_of_range));
    return {};
  }
  std::optional<ledger::UnixSeconds> end;
  const std::string_view end_text = cell(r, end_);
  if (end_ >= 0 && !no_time(end_text)) {
    end = parse_datetime(end_text, nullptr, &out_of_range);
    if (!end) {
      reject(r.line, "End", not_a_datetime(end_text, out_of_range));
      return {};
    }
  }
  std::optional<std::int64_t> elapsed;
  if (elapsed_raw_ >= 0) {
    elapsed = whole(cell(r, elapsed_raw_));
    if (!elapsed) {
      reject(r.line, "ElapsedRaw",
             quote_cell(cell(r, elapsed_raw_)) + " is not a number of seconds");
      return {};
    }
  } else if (elapsed_ >= 0) {
    elapsed = parse_elapsed(cell(r, elapsed_));
    if (!elapsed) {
      reject(r.line, "Elapsed",
             quote_cell(cell(r, elapsed_)) + " is not a duration as [D-]HH:MM:SS");
      return {};
    }
  } else if (end) {
    elapsed = *end - *start;
  } else {
    reject(r.line, "End", "a job still running needs an Elapsed column to say how long it has run");
    return {};
  }
  if (*elapsed < 0) {
    reject(r.line, "End", "the job ends before it starts");
    return {};
  }
  // Slurm itself is younger than this; a longer run is a corrupt cell, not a job to spread over
  // days.
  constexpr std::int64_t kMaxElapsed = std::int64_t{3653} * 24 * 3600;
  if (*elapsed > kMaxElapsed) {
    reject(r.line,
           elapsed_raw_ >= 0 ? "ElapsedRaw"
           : elapsed_ >= 0   ? "Elapsed"
                             : "End",
           "the job would have run for over ten years; check the cell");
    return {};
  }
  if (*elapsed == 0) return {};
  hosts_.clear();
  if (const std::string_view list = cell(r, nodes_);
      nodes_ >= 0 && !list.empty() && list != "None assigned") {
    auto hosts = expand_hostlist(list);
    if (!hosts) {
      reject(r.line, "NodeList",
             quote_cell(list) + " is not a Slurm hostlist (as in gpu-a[01-04],gpu-b7)");
      return {};
    }
    hosts_ = std::move(*hosts);
  }
  if (hosts_.empty()) hosts_.emplace_back();  // no NodeList: one row for the whole job
  // The tags every row of the job carries, checked against the caps once, before any row goes out
  // (a job loads whole or not at all).
  std::vector<ledger::Tag> common;
  for (const auto& [key, column] : {std::pair{"user", user_},
                                    {"account", account_},
                                    {"partition", partition_},
                                    {"cluster", cluster_}})
    if (const std::string_view v = cell(r, column); !v.empty())
      common.push_back({key, std::string(v)});
  common.push_back({"job", std::string(job)});
  std::vector<ledger::Tag> check = common;
  for (const auto& host : hosts_) check.push_back({"node", host});
  for (const auto& g : gpus->by_type) check.push_back({"gpu_type", g.first});
  if (!tags_within_caps(check, r.line, "", log_)) {
    ++rejected_;
    return {};
  }
  const double share = 1.0 / static_cast<double>(hosts_.size());
  const double hours = static_cast<double>(*elapsed) / 3600.0;
  const ledger::UnixSeconds stop = *start + *elapsed;
  // One row per UTC day the job ran on (so that a week-long job is spent over its week: budgets,
  // forecasts and anomalies read days, not the day it started), node and GPU type.
  for (ledger::UnixSeconds from = *start; from < stop;) {
    const ledger::UnixSeconds to =
        std::min(stop, (ledger::day_of(from) + 1) * ledger::UnixSeconds{86400});
    const double part_hours = static_cast<double>(to - from) / 3600.0;
    for (const auto& host : hosts_) {
      for (const auto& [type, count] : gpus->by_type) {
        ledger::Charge& c = charge_;
        ledger::clear(c);
        c.line = r.line;
        c.period_start = from;
        c.period_end = to;
        c.billing_period_start = month_start(from);
        c.provider = "Slurm";
        c.billing_account_id = text_cell(r, cluster_);
        c.sub_account_id = c.sub_account_name = text_cell(r, account_);
        c.service_name = "Slurm";
        c.service_category = "Compute";
        c.resource_id.assign(job);
        if (!host.empty()) c.resource_id.append("/").append(host);
        c.resource_name = text_cell(r, name_);
        c.resource_type = "Slurm job";
        c.sku_id = type;
        c.charge_category = "Usage";
        c.charge_frequency = "Usage-Based";
        c.pricing_unit = c.consumed_unit = "GPU-Hours";
        c.gpu_hours = static_cast<double>(count) * part_hours * share;
        c.pricing_quantity = c.consumed_quantity = c.gpu_hours;
        c.charge_description =
            std::to_string(count) + " " + (type.empty() ? "" : type + " ") + "GPUs x " +
            hours_text(part_hours) + " h of " + hours_text(hours) + " h" +
            (hosts_.size() > 1 ? ", 1/" + std::to_string(hosts_.size()) + " on " + host : "");
        c.tags = common;
        if (!host.empty()) c.tags.push_back({"node", host});
        if (!type.empty()) c.tags.push_back({"gpu_type", type});
        ++loaded_;
        if (sink_.charge)
          if (auto s = sink_.charge(std::move(c)); !s) return s;
      }
    }
    from = to;
  }
  return {};
}

}  // namespace aicost::billing
