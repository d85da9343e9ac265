#include "session/capture.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <stdexcept>

#include <filesystem>

#include "emu/record.h"
#include "program/program.h"
#include "session/bench.h"
#include "session/arrays.h"
#include "session/hardware.h"

// The GPU recorder hooks in here. When the build has CUDA, src/gpu provides
// "gpu/record.h" with
//   std::string ws::gpu::device_name();   // "" when no usable device is present
//   uint64_t ws::gpu::record(const catalog::KernelInfo&, const catalog::Params&,
//                            catalog::HostArrays&, const std::vector<uint32_t>& blocks,
//                            uint64_t max_records, trace::Trace& out);
// with the contract of emu::record (same trace, record for record; returns lane accesses).
#if defined(WS_HAVE_CUDA) && __has_include("gpu/record.h")
#include "gpu/record.h"
#define WS_GPU_RECORDER 1
#endif

namespace ws::session {
std::string version_line() { return std::string("warpscope ") + version() + " (commit " + commit() + ")"; }

namespace {

// One way of running a launch and recording its trace.
// About half a minute of emulation on one core: past that, a smaller size or a block
// filter teaches the same pattern.
constexpr uint64_t kMaxEmulatedAccesses = 3'000'000'000ull;

struct Backend {
  const char* name;       // trace::Launch::backend
  std::string (*device)();  // what runs it; "" when it cannot run on this machine
  uint64_t (*record)(const catalog::KernelInfo&, const catalog::Params&, catalog::HostArrays&,
                     const std::vector<uint32_t>& blocks, uint64_t max_records, trace::Trace& out);
  // The whole grid's statistics without records (null: the backend has no counts mode):
  // fills the trace's head (launch, buffers, sites) and the report; returns lane accesses.
  uint64_t (*count)(const catalog::KernelInfo&, const catalog::Params&, catalog::HostArrays&,
                    const analysis::DramModel&, trace::Trace& meta, analysis::Report& report) = nullptr;
  // The same whole-grid totals from the device's own counters, given the launch's inputs
  // (null: the backend has none); throws with one line when they cannot be read.
  void (*hw)(const catalog::KernelInfo&, const catalog::Params&, catalog::HostArrays inputs, const trace::Trace& meta,
             const analysis::Report& report, HwCounts& out) = nullptr;
};

// Counts mode's totals of the quantities the GPU's counters give, by access kind and figure,
// in the order of gpu::counter_specs(): requests and sectors of global loads and stores,
// requests, wavefronts and bank conflicts of shared loads and stores.
[[maybe_unused]] uint64_t model_total(const trace::Trace& meta, const analysis::Report& report, trace::Space space,
                                      bool store, const std::string& figure) {
  uint64_t sum = 0;
  for (size_t i = 0; i < meta.sites.size() && i < report.sites.size(); ++i) {
    const trace::Site& s = meta.sites[i];
    if (s.space != space || (s.op == trace::Op::Store) != store || (s.op != trace::Op::Store && s.op != trace::Op::Load))
      continue;
    const auto& n = report.sites[i];
    sum += figure == "requests" ? n.requests
           : figure == "sectors" ? n.sectors
           : figure == "wavefronts" ? n.wavefronts
                                    : n.bank_conflicts;
  }
  return sum;
}

const Backend kEmulator{
    "emulator", [] { return std::string("CPU emulator"); },
    [](const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays,
       const std::vector<uint32_t>& blocks, uint64_t max_records, trace::Trace& out) {
      emu::CaptureOptions opt;
      opt.blocks = blocks;
      opt.max_records = max_records;
      opt.max_lane_accesses = kMaxEmulatedAccesses;
      return emu::record(k, p, arrays, opt, out);
    }};

#ifdef WS_GPU_RECORDER
const Backend kGpu{"gpu", [] { return gpu::device_name(); }, &gpu::record,
                   [](const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays,
                      const analysis::DramModel& dram, trace::Trace& meta, analysis::Report& report) {
                     gpu::Counts c = gpu::counts(k, p, arrays, dram);
                     meta = std::move(c.meta);
                     report = std::move(c.report);
                     return c.lane_accesses;
                   },
                   [](const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays inputs,
                      const trace::Trace& meta, const analysis::Report& report, HwCounts& out) {
                     const gpu::HwCounters hw = gpu::hw_counters(k, p, inputs);
                     out.chip = hw.chip;
                     out.passes = hw.passes;
                     out.ms = hw.ms;
                     const auto& specs = gpu::counter_specs();
                     for (size_t i = 0; i < specs.size() && i < hw.values.size(); ++i) {
                       const bool global = specs[i].space.rfind("global", 0) == 0;
                       const bool store = specs[i].space.size() > 3 && specs[i].space.substr(specs[i].space.size() - 3) == "_st";
                       out.rows.push_back({std::string(global ? "global " : "shared ") + (store ? "stores" : "loads"),
                                           specs[i].figure, hw.values[i],
                                           model_total(meta, report, global ? trace::Space::Global : trace::Space::Shared,
                                                       store, specs[i].figure)});
                     }
                   }};
const Backend* gpu_backend() { return &kGpu; }
#else
const Backend* gpu_backend() { return nullptr; }
#endif

// Picks the backend for `name`; `note` says what happened when "auto" had to fall back.
// `clusters`: a kernel launched in thread block clusters, which only the emulator records
// (the GPU's record mode refuses it in one line).
const Backend& choose(const std::string& name, bool clusters, std::string& device, std::string& note) {
  const Backend* gpu = gpu_backend();
  if (name == "auto" && clusters && gpu && !gpu->device().empty()) {
    note = "a kernel in thread block clusters: recorded with the CPU emulator (the GPU's record mode does not run "
           "clusters yet)";
    device = kEmulator.device();
    return kEmulator;
  }
  if (name == "gpu" || name == "auto") {
    if (gpu) {
      device = gpu->device();
      if (!device.empty()) {
        if (name == "auto") note = "recorded on the GPU (" + device + ")";
        return *gpu;
      }
    }
    if (name == "gpu")
      throw InputError(gpu ? "no GPU found: use --backend emulator"
                           : "no GPU backend: this build has no CUDA support (use --backend emulator)");
    note = gpu ? "no GPU found: recorded with the CPU emulator"
               : "this build has no GPU backend: recorded with the CPU emulator";
  }  // resolve() let through only "auto", "gpu" and "emulator"
  device = kEmulator.device();
  return kEmulator;
}

// Host memory a capture may use: a fixed ceiling, lower on small machines.
uint64_t memory_limit() {
  uint64_t limit = uint64_t(8) << 30;
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) limit = std::min(limit, uint64_t(pages) * uint64_t(page) / 2);
  return limit;
}

// Records one launch of a program may keep: the program's process holds the records of
// each launch recorded (record_launches of each kernel, two kernels' worth assumed; all of
// them: 16) and writes them, and the session reads them back, so both copies must fit
// beside each other.
uint64_t program_records(uint64_t asked, uint64_t record_launches) {
  const double launches = record_launches ? 2.0 * double(record_launches) : 16.0;
  const double fit = double(memory_limit()) / (2 * launches * 1.5 * double(sizeof(trace::Record)));
  return std::max<uint64_t>(fit < double(asked) ? uint64_t(fit) : asked, 1);
}

std::string gib(double bytes) {
  char s[32];
  std::snprintf(s, sizeof s, "%.1f GiB", bytes / double(uint64_t(1) << 30));
  return s;
}

// Refuses launches whose arrays do not fit in host memory, and returns the record cap
// that keeps the trace within what is left (records past it are dropped and counted).
uint64_t fit_in_memory(const catalog::KernelInfo& k, const catalog::Params& p, bool copies, uint64_t max_records) {
  double bytes = 0;  // double: a hostile shape must not wrap around
  for (const auto& b : k.buffers(p)) bytes += double(b.rows) * double(b.cols) * double(sizeof(float));
  if (copies) bytes *= 2;  // the CPU reference works on a copy of the inputs
  const uint64_t limit = memory_limit();
  if (bytes > double(limit))
    throw InputError("size " + std::to_string(p.size()) + " is too large for memory: " + k.id + " needs about " +
                     gib(bytes) + " of host memory, the limit here is " + gib(double(limit)));
  // A growing vector briefly holds its old and new storage.
  const double per_record = 1.5 * double(sizeof(trace::Record));
  const double fit = (double(limit) - bytes) / per_record;
  return fit < double(max_records) ? uint64_t(fit) : max_records;
}

bool every_block(const std::vector<uint32_t>& asked, const trace::Trace& t) {
  if (asked.empty()) return true;
  std::vector<uint32_t> b = t.launch().blocks;
  std::sort(b.begin(), b.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());
  return b.size() == t.launch().grid.count();
}

}  // namespace

const char* version() {
#ifdef WS_VERSION
  return WS_VERSION;
#else
  return "dev";
#endif
}

namespace {

// Every launch of the user's program, its GPU times given their yardsticks, and the replay
// pack's SASS trace of the same code (the hash of its sources and flags) with the same
// launches, where it did not run on a GPU.
Capture capture_program(const ResolvedLaunch& req) {
  // The code as it is now, before it runs: an edit saved during the run is a new program.
  const std::string hash = program::source_hash(req.program);
  program::Options o = req.program;
  o.max_records = program_records(o.max_records, o.record_launches);
  program::Result r = program::run(o);
  if (r.trace.launches.empty())
    throw InputError("the program " + req.program.source + " made no kernel launch" +
                     (r.exit_code ? " (it exited with code " + std::to_string(r.exit_code) + ")" : std::string()));
  Capture c;
  if (r.trace.provenance.backend != "gpu")
    c.hardware = replay_program_sass(hash, [&](const trace::Trace& h) {
      // The same code run with other arguments is another launch sequence: not these figures.
      if (h.launches.size() != r.trace.launches.size()) return false;
      for (size_t i = 0; i < h.launches.size(); ++i)
        if (!(h.launches[i].grid == r.trace.launches[i].grid) || !(h.launches[i].block == r.trace.launches[i].block))
          return false;
      return true;
    });
  if (c.hardware) {
    auto h = std::make_shared<trace::Trace>(*c.hardware);
    program::name_shared_arrays(*h, r.trace);
    c.hardware = std::move(h);
  }
  c.source_hash = hash;
  if (!r.trace.timings_json.empty()) r.trace.timings_json = with_yardsticks(r.trace.timings_json);
  c.shape_from = shape_arrays(r.trace, req.program.source, r.notes);
  for (const std::string& n : r.notes) c.note += (c.note.empty() ? "" : "; ") + n;
  if (r.ending.kind == "timeout")
    c.note += (c.note.empty() ? "" : "; ") + std::string("stopped at the time limit: ") + r.ending.problem.message;
  else if (r.exit_code)
    c.note += (c.note.empty() ? "" : "; ") + std::string("the program exited with code ") + std::to_string(r.exit_code);
  c.trace = std::move(r.trace);
  c.output = std::move(r.output);
  c.problem = std::move(r.ending.problem);
  c.races = std::move(r.races);
  c.seconds = r.run_seconds;
  return c;
}

}  // namespace

Capture capture(const ResolvedLaunch& req) {
  if (req.origin == Origin::Program) return capture_program(req);
  const catalog::KernelInfo* k = req.kernel;
  if (!k) throw InputError("no kernel given: allowed " + catalog::ids());
  Capture res;
  res.params = req.params;
  std::string device;
  const Backend& backend = choose(req.backend, catalog::launch_cluster(*k, res.params) > 1, device, res.note);
  if (!req.note.empty()) res.note = req.note + (res.note.empty() ? "" : "; " + res.note);
  const uint64_t max_records = fit_in_memory(*k, res.params, req.blocks.empty(), req.max_records);

  catalog::HostArrays arrays = catalog::make_arrays(*k, res.params);
  catalog::HostArrays want;
  if (req.blocks.empty()) want = arrays;
  const bool counts = req.counts && req.blocks.empty() && backend.count;

  catalog::HostArrays inputs;  // for the GPU's counters, which run the kernel again
  if (counts && backend.hw) inputs = arrays;
  const auto start = std::chrono::steady_clock::now();
  try {
    if (counts) {
      res.lane_accesses = backend.count(*k, res.params, arrays, req.dram, res.trace, res.report);
      res.counted = true;
    } else {
      res.lane_accesses = backend.record(*k, res.params, arrays, req.blocks, max_records, res.trace);
    }
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  } catch (const emu::KernelError& e) {
    throw std::runtime_error(k->id + " failed: " + e.what());
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (res.counted && backend.hw) {
    try {
      backend.hw(*k, res.params, std::move(inputs), res.trace, res.report, res.hw);
    } catch (const std::exception& e) {  // no CUPTI, no permission: counts mode's figures stand alone
      res.hw.rows.clear();
      res.hw.unavailable = e.what();
    }
  }

  if (max_records < req.max_records && res.trace.launch().dropped_records)
    res.note += std::string(res.note.empty() ? "" : "; ") + "record cap lowered to " + std::to_string(max_records) +
                " to fit in host memory";
  trace::Provenance& l = res.trace.provenance;
  l.backend = backend.name;
  l.device = device;
  l.date = trace::utc_now();
  l.version = version();

  if (res.counted || every_block(req.blocks, res.trace)) {
    if (want.empty()) want = catalog::make_arrays(*k, res.params);
    k->reference(res.params, want);
    res.max_rel_error = catalog::max_rel_error(*k, res.params, arrays, want);
    res.checked = true;
  }
  // What the hardware ran for this kernel with these parameters: the replay pack's SASS trace.
  if (!res.counted) res.hardware = replay_catalog_sass(k->id, res.trace.launch().params);
  return res;
}

bool check_failed(bool checked, double max_rel_error) { return checked && !(max_rel_error <= kMatchTolerance); }

std::string check_text(bool checked, double max_rel_error, const trace::Trace& t) {
  if (!checked)
    return "output not checked: only " + std::to_string(t.launch().blocks.size()) + " of " +
           std::to_string(t.launch().grid.count()) + " blocks ran";
  if (!check_failed(checked, max_rel_error)) return "output matches CPU reference";
  char e[32];
  std::snprintf(e, sizeof e, "%.3g", max_rel_error);
  return std::string("output DIFFERS from CPU reference (max relative error ") + e + ")";
}

}  // namespace ws::session
