// src/gpu/counters.cpp — the whole grid's memory figures from the GPU's own counters: a
// plain launch profiled by CUPTI's range profiler (the counters Nsight Compute reads), the
// kernel replayed by CUPTI as often as the counters need passes, or (user replay) the
// launch run by the profiler once per pass with its InOut arrays put back between. CUPTI
// and the driver are opened at run time, so a build runs where they are missing and says
// so in one line.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <vector>

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cuda_runtime_api.h>

#include "gpu/cupti.h"
#include "gpu/internal.h"

namespace ws::gpu {

const std::vector<CounterSpec>& counter_specs() {
  static const std::vector<CounterSpec> specs = {
      // The L1's requests: the load and store counters take a pass each (four passes for the
      // ten figures). The SM's count of instructions with a lane on would share a pass with
      // the sectors (two in all), but where a size cuts tiles it counts more global requests
      // than the model (docs/validation.md section 15).
      {"global_ld", "requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"},
      {"global_ld", "sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"},
      {"global_st", "requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"},
      {"global_st", "sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"},
      {"shared_ld", "requests", "smsp__inst_executed_op_shared_ld.sum"},
      {"shared_ld", "wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"},
      {"shared_ld", "conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"},
      {"shared_st", "requests", "smsp__inst_executed_op_shared_st.sum"},
      {"shared_st", "wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"},
      {"shared_st", "conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"},
  };
  return specs;
}

uint64_t HwCounters::get(const std::string& space, const std::string& figure) const {
  const auto& s = counter_specs();
  for (size_t i = 0; i < s.size() && i < values.size(); ++i)
    if (s[i].space == space && s[i].figure == figure) return values[i];
  return 0;
}

namespace {

// The entry points this file calls in libcupti, named once.
#define WS_CUPTI_FUNCTIONS(X)                                                                      \
  X(cuptiProfilerInitialize) X(cuptiDeviceGetChipName) X(cuptiProfilerGetCounterAvailability)      \
  X(cuptiProfilerHostInitialize) X(cuptiProfilerHostDeinitialize) X(cuptiProfilerHostConfigAddMetrics) \
  X(cuptiProfilerHostGetConfigImageSize) X(cuptiProfilerHostGetConfigImage)                        \
  X(cuptiProfilerHostGetNumOfPasses) X(cuptiProfilerHostEvaluateToGpuValues) X(cuptiRangeProfilerEnable) \
  X(cuptiRangeProfilerDisable) X(cuptiRangeProfilerGetCounterDataSize)                             \
  X(cuptiRangeProfilerCounterDataImageInitialize) X(cuptiRangeProfilerSetConfig)                   \
  X(cuptiRangeProfilerStart) X(cuptiRangeProfilerStop) X(cuptiRangeProfilerDecodeData)             \
  X(cuptiRangeProfilerGetCounterDataInfo) X(cuptiGetResultString)

// Those entry points and the driver's two, looked up once.
struct Api {
#define WS_DECLARE(f) decltype(&::f) f = nullptr;
  WS_CUPTI_FUNCTIONS(WS_DECLARE)
#undef WS_DECLARE
  CUresult (*cuCtxGetCurrent)(CUcontext*) = nullptr;
  CUresult (*cuCtxGetDevice)(CUdevice*) = nullptr;
  std::string missing;  // why the API cannot be used; "" when it can
};

const Api& api() {
  static const Api a = [] {
    Api r;
    void* cupti = detail::open_cupti();
    void* cuda = detail::open_library({"libcuda.so.1", "libcuda.so"});
    if (!cupti) return r.missing = "the GPU's counters need CUPTI (libcupti.so.13, part of the CUDA toolkit), which was not found", r;
    if (!cuda) return r.missing = "the GPU's counters need the CUDA driver (libcuda.so.1), which was not found", r;
#define WS_FIND(f) \
  if (!detail::find_symbol(cupti, #f, r.f)) return r.missing = "this CUPTI has no " #f " (the counters need CUDA 12.6 or later)", r;
    WS_CUPTI_FUNCTIONS(WS_FIND)
#undef WS_FIND
    if (!detail::find_symbol(cuda, "cuCtxGetCurrent", r.cuCtxGetCurrent) || !detail::find_symbol(cuda, "cuCtxGetDevice", r.cuCtxGetDevice))
      return r.missing = "this CUDA driver has no cuCtxGetCurrent or cuCtxGetDevice", r;
    return r;
  }();
  return a;
}

void cupti_check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* s = nullptr;
  if (api().cuptiGetResultString) api().cuptiGetResultString(r, &s);
  std::string why = s ? s : "error " + std::to_string(int(r));
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    why += " (reading the GPU's counters needs the driver's permission: NVreg_RestrictProfilingToAdminUsers=0, or root)";
  throw Error(std::string("GPU counters: ") + what + ": " + why);
}

// The host side of the profiler for this chip: metric names to a config image, counter
// data to values.
class Host {
 public:
  Host(const std::string& chip, const std::vector<uint8_t>& availability) {
    auto p = WS_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
    cupti_check(api().cuptiProfilerHostInitialize(&p), "starting the host profiler");
    h_ = p.pHostObject;
  }
  ~Host() {
    auto p = WS_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    p.pHostObject = h_;
    api().cuptiProfilerHostDeinitialize(&p);
  }
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;
  CUpti_Profiler_Host_Object* get() const { return h_; }

 private:
  CUpti_Profiler_Host_Object* h_ = nullptr;
};

}  // namespace

namespace detail {

OutputBackup::OutputBackup(const DeviceArrays& a) : a_(a) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.specs()[i].role != catalog::Role::InOut || !a.bytes(i)) continue;
    index_.push_back(i);
    copies_.push_back(std::make_unique<DeviceMemory>(a.bytes(i), "the backup of '" + a.specs()[i].name + "'"));
  }
}

void OutputBackup::save() {
  for (size_t j = 0; j < index_.size(); ++j)
    check(cudaMemcpy(copies_[j]->get(), a_.ptr(index_[j]), copies_[j]->bytes(), cudaMemcpyDeviceToDevice),
          "saving the InOut arrays before the passes");
  check(cudaDeviceSynchronize(), "saving the InOut arrays before the passes");
}

void OutputBackup::restore() {
  for (size_t j = 0; j < index_.size(); ++j)
    check(cudaMemcpy(a_.ptr(index_[j]), copies_[j]->get(), copies_[j]->bytes(), cudaMemcpyDeviceToDevice),
          "restoring the InOut arrays between passes");
  check(cudaDeviceSynchronize(), "restoring the InOut arrays between passes");
}

struct Profiler::State {
  std::string chip;
  std::vector<uint8_t> availability, config, counter_data;
  std::vector<std::string> names;
  std::vector<const char*> metrics;
  CUpti_RangeProfiler_Object* object = nullptr;
  std::unique_ptr<Host> host;
  int passes = 0;
  size_t ranges_read = 0;  // ranges of the counter data already evaluated
  bool configured = false;
  Replay replay = Replay::Kernel;
  ProfilePhases phases;  // the last profile() call's
};

// Ranges the counter data holds before it is set up again: one a kernel launch, so a
// profiled call may make up to this many launches.
constexpr size_t kMaxRanges = 64;

Profiler::Profiler() : Profiler(std::vector<std::string>{}) {}

Profiler::Profiler(const std::vector<std::string>& metrics) : s_(std::make_unique<State>()) {
  const Api& a = api();
  if (!a.missing.empty()) throw Error(a.missing);
  require_device();
  check(cudaFree(nullptr), "starting the CUDA context");
  CUcontext ctx = nullptr;
  CUdevice dev = 0;
  if (a.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx || a.cuCtxGetDevice(&dev) != CUDA_SUCCESS)
    throw Error("GPU counters: no current CUDA context");
  auto init = WS_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
  cupti_check(a.cuptiProfilerInitialize(&init), "initializing the profiler");
  auto chip = WS_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
  chip.deviceIndex = size_t(dev);
  cupti_check(a.cuptiDeviceGetChipName(&chip), "reading the chip's name");
  s_->chip = chip.pChipName ? chip.pChipName : "";

  auto av = WS_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
  av.ctx = ctx;
  cupti_check(a.cuptiProfilerGetCounterAvailability(&av), "asking which counters are available");
  s_->availability.resize(av.counterAvailabilityImageSize);
  av.pCounterAvailabilityImage = s_->availability.data();
  cupti_check(a.cuptiProfilerGetCounterAvailability(&av), "asking which counters are available");

  s_->names = metrics;
  if (s_->names.empty())
    for (const auto& c : counter_specs()) s_->names.push_back(c.metric);
  for (const auto& n : s_->names) s_->metrics.push_back(n.c_str());
  s_->host = std::make_unique<Host>(s_->chip, s_->availability);
  auto add = WS_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
  add.pHostObject = s_->host->get();
  add.ppMetricNames = s_->metrics.data();
  add.numMetrics = s_->metrics.size();
  cupti_check(a.cuptiProfilerHostConfigAddMetrics(&add), "choosing the counters");
  auto size = WS_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
  size.pHostObject = s_->host->get();
  cupti_check(a.cuptiProfilerHostGetConfigImageSize(&size), "sizing the configuration");
  s_->config.resize(size.configImageSize);
  auto img = WS_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
  img.pHostObject = s_->host->get();
  img.configImageSize = s_->config.size();
  img.pConfigImage = s_->config.data();
  cupti_check(a.cuptiProfilerHostGetConfigImage(&img), "building the configuration");
  auto np = WS_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  np.pConfigImage = s_->config.data();
  np.configImageSize = s_->config.size();
  cupti_check(a.cuptiProfilerHostGetNumOfPasses(&np), "counting the passes");
  s_->passes = int(np.numOfPasses);

  auto en = WS_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
  en.ctx = ctx;
  cupti_check(a.cuptiRangeProfilerEnable(&en), "enabling the range profiler");
  s_->object = en.pRangeProfilerObject;
}

Profiler::~Profiler() {
  if (!s_ || !s_->object) return;
  auto p = WS_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
  p.pRangeProfilerObject = s_->object;
  api().cuptiRangeProfilerDisable(&p);
}

int Profiler::passes() const { return s_->passes; }
const std::string& Profiler::chip() const { return s_->chip; }
Replay Profiler::replay() const { return s_->replay; }
const ProfilePhases& Profiler::phases() const { return s_->phases; }

// Another replay mode needs the configuration set again.
void Profiler::set_replay(Replay r) {
  if (r != s_->replay) s_->configured = false;
  s_->replay = r;
}

// The counter data and the configuration, set once and again only when the data is full
// (or after a user replay cycle, see profile()): setting them is most of what a profiled
// launch costs beside its replays.
void Profiler::configure() {
  const Api& a = api();
  auto ds = WS_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
  ds.pRangeProfilerObject = s_->object;
  ds.pMetricNames = s_->metrics.data();
  ds.numMetrics = s_->metrics.size();
  ds.maxNumOfRanges = kMaxRanges;
  ds.maxNumRangeTreeNodes = kMaxRanges;
  cupti_check(a.cuptiRangeProfilerGetCounterDataSize(&ds), "sizing the counter data");
  s_->counter_data.assign(ds.counterDataSize, 0);
  auto ci = WS_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
  ci.pRangeProfilerObject = s_->object;
  ci.counterDataSize = s_->counter_data.size();
  ci.pCounterData = s_->counter_data.data();
  cupti_check(a.cuptiRangeProfilerCounterDataImageInitialize(&ci), "preparing the counter data");

  auto sc = WS_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  sc.pRangeProfilerObject = s_->object;
  sc.configSize = s_->config.size();
  sc.pConfig = s_->config.data();
  sc.counterDataImageSize = s_->counter_data.size();
  sc.pCounterDataImage = s_->counter_data.data();
  sc.range = CUPTI_AutoRange;  // one range a kernel launch, under either replay
  sc.replayMode = s_->replay == Replay::User ? CUPTI_UserReplay : CUPTI_KernelReplay;
  sc.maxRangesPerPass = kMaxRanges;
  sc.numNestingLevels = 1;
  sc.minNestingLevel = 1;
  sc.passIndex = 0;
  sc.targetNestingLevel = 1;
  cupti_check(a.cuptiRangeProfilerSetConfig(&sc), "configuring the range profiler");
  s_->ranges_read = 0;
  s_->configured = true;
}

std::vector<uint64_t> Profiler::profile(const std::function<void()>& launch, int& kernels, OutputBackup* outputs) {
  const Api& a = api();
  using Clock = std::chrono::steady_clock;
  ProfilePhases ph;
  const Clock::time_point t0 = Clock::now();
  Clock::time_point t = t0;
  // Milliseconds since the last lap, added to `phase`.
  auto lap = [&t](double& phase) {
    const Clock::time_point now = Clock::now();
    phase += std::chrono::duration<double, std::milli>(now - t).count();
    t = now;
  };
  // A call may add up to kMaxRanges / 2 ranges; past that, the data starts over.
  if (!s_->configured || s_->ranges_read > kMaxRanges / 2) configure();
  lap(ph.configure);
  const bool user = s_->replay == Replay::User;
  const bool restore = user && s_->passes > 1;
  if (restore && !outputs) throw Error("GPU counters: user replay needs the launch's arrays to put back between passes");
  if (restore) outputs->save();
  lap(ph.backup);
  // Kernel replay: one start, launch and stop. User replay: one a pass, until CUPTI says
  // every pass has been submitted.
  for (bool submitted = false; !submitted;) {
    if (restore && ph.launches > 0) outputs->restore();
    lap(ph.backup);
    auto st = WS_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
    st.pRangeProfilerObject = s_->object;
    cupti_check(a.cuptiRangeProfilerStart(&st), "starting the range profiler");
    lap(ph.start);
    launch();
    lap(ph.launch);
    check(cudaDeviceSynchronize(), "the profiled launch");
    lap(ph.sync);
    auto sp = WS_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
    sp.pRangeProfilerObject = s_->object;
    cupti_check(a.cuptiRangeProfilerStop(&sp), "stopping the range profiler");
    lap(ph.stop);
    ++ph.launches;
    ph.pass_index.push_back(sp.passIndex);
    submitted = !user || sp.isAllPassSubmitted;
    if (user && ph.launches > s_->passes) {
      s_->configured = false;
      throw Error("GPU counters: user replay took more than the " + std::to_string(s_->passes) + " passes CUPTI counted");
    }
  }
  // A replay cycle that does not end at pass 0 is not known to start over at the next
  // start: the next call sets the configuration again (timed as its configure phase).
  if (user && ph.pass_index.back() != 0) s_->configured = false;
  if (ph.launches != (user ? s_->passes : 1)) {
    s_->configured = false;
    throw Error("GPU counters: CUPTI took " + std::to_string(ph.launches) + " passes of " +
                std::to_string(s_->passes));
  }
  auto dd = WS_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
  dd.pRangeProfilerObject = s_->object;
  cupti_check(a.cuptiRangeProfilerDecodeData(&dd), "decoding the counters");
  lap(ph.decode);
  if (dd.numOfRangeDropped) {
    s_->configured = false;
    throw Error("GPU counters: " + std::to_string(dd.numOfRangeDropped) + " launches were not counted");
  }
  auto info = WS_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  info.pCounterDataImage = s_->counter_data.data();
  info.counterDataImageSize = s_->counter_data.size();
  cupti_check(a.cuptiRangeProfilerGetCounterDataInfo(&info), "reading the counter data");
  const size_t first = s_->ranges_read, total_ranges = info.numTotalRanges;
  kernels = int(total_ranges - std::min(first, total_ranges));
  s_->ranges_read = total_ranges;

  std::vector<uint64_t> total(s_->metrics.size(), 0);
  std::vector<double> v(s_->metrics.size());
  for (size_t r = first; r < total_ranges; ++r) {
    auto ev = WS_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    ev.pHostObject = s_->host->get();
    ev.pCounterDataImage = s_->counter_data.data();
    ev.counterDataImageSize = s_->counter_data.size();
    ev.rangeIndex = r;
    ev.ppMetricNames = s_->metrics.data();
    ev.numMetrics = s_->metrics.size();
    ev.pMetricValues = v.data();
    cupti_check(a.cuptiProfilerHostEvaluateToGpuValues(&ev), "evaluating the counters");
    for (size_t i = 0; i < v.size(); ++i) total[i] += uint64_t(std::llround(v[i]));
  }
  lap(ph.evaluate);
  ph.total = std::chrono::duration<double, std::milli>(t - t0).count();
  s_->phases = std::move(ph);
  return total;
}

double Profiler::profiled_ms(const std::function<void()>& launch, std::vector<uint64_t>& values, int& kernels,
                             OutputBackup* outputs) {
  std::vector<double> ms;
  for (int i = 0; i < 4; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    values = profile(launch, kernels, outputs);
    if (i > 0) ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(ms);
}

Profiler& profiler() {
  // One per process: CUPTI's profiler belongs to the context, which lives as long. Never
  // destroyed: at exit the context may already be gone.
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  static Profiler* p = nullptr;
  if (!p) p = new Profiler();
  return *p;
}

}  // namespace detail

HwCounters hw_counters(const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays) {
  detail::DeviceArrays dev(k, p);
  dev.upload(arrays);
  auto plain = detail::plain_runner(k, p, dev);
  detail::Profiler& prof = detail::profiler();
  std::unique_ptr<detail::OutputBackup> outputs;  // only user replay puts arrays back
  if (prof.replay() == detail::Replay::User) outputs = std::make_unique<detail::OutputBackup>(dev);
  HwCounters out;
  out.chip = prof.chip();
  out.passes = prof.passes();
  const auto t0 = std::chrono::steady_clock::now();
  out.values = prof.profile([&] { plain->launch(); }, out.kernels, outputs.get());
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  dev.download_outputs(arrays);
  return out;
}

}  // namespace ws::gpu
