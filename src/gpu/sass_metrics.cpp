// src/gpu/sass_metrics.cpp — per-instruction figures from CUPTI's SASS metrics API: CUPTI
// patches the kernel's SASS with counters (no call per instruction, unlike a tracer's
// patch), the kernel runs, and every executed instruction's counts come back by function
// and offset. CUPTI is opened at run time, as for the range profiler (counters.cpp).
#include <chrono>
#include <cstring>
#include <map>

#include <cupti_sass_metrics.h>
#include <cupti_target.h>
#include <cupti_profiler_target.h>

#include <cuda_runtime_api.h>

#include "gpu/cupti.h"
#include "gpu/internal.h"

namespace ws::gpu {
namespace {

#define WS_SASS_FUNCTIONS(X)                                                                        \
  X(cuptiProfilerInitialize) X(cuptiDeviceGetChipName) X(cuptiSassMetricsGetNumOfMetrics)           \
  X(cuptiSassMetricsGetMetrics) X(cuptiSassMetricsGetProperties) X(cuptiSassMetricsSetConfig)       \
  X(cuptiSassMetricsUnsetConfig) X(cuptiSassMetricsEnable) X(cuptiSassMetricsDisable)               \
  X(cuptiSassMetricsGetDataProperties) X(cuptiSassMetricsFlushData) X(cuptiGetResultString)

struct Api {
#define WS_DECLARE(f) decltype(&::f) f = nullptr;
  WS_SASS_FUNCTIONS(WS_DECLARE)
#undef WS_DECLARE
  std::string missing;
};

const Api& api() {
  static const Api a = [] {
    Api r;
    void* cupti = detail::open_cupti();
    if (!cupti) return r.missing = "SASS metrics need CUPTI (libcupti.so.13, part of the CUDA toolkit), which was not found", r;
#define WS_FIND(f) \
  if (!detail::find_symbol(cupti, #f, r.f)) return r.missing = "this CUPTI has no " #f " (SASS metrics need CUDA 12.5 or later)", r;
    WS_SASS_FUNCTIONS(WS_FIND)
#undef WS_FIND
    return r;
  }();
  if (!a.missing.empty()) throw Error(a.missing);
  return a;
}

void check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* s = nullptr;
  api().cuptiGetResultString(r, &s);
  throw Error(std::string("SASS metrics: ") + what + ": " + (s ? s : "error " + std::to_string(int(r))));
}

std::string chip() {
  const Api& a = api();
  detail::check(cudaFree(nullptr), "starting the GPU");  // a context, which CUPTI needs
  auto init = WS_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
  check(a.cuptiProfilerInitialize(&init), "initializing the profiler");
  int dev = 0;
  detail::check(cudaGetDevice(&dev), "asking for the device");
  auto c = WS_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
  c.deviceIndex = size_t(dev);
  check(a.cuptiDeviceGetChipName(&c), "reading the chip's name");
  return c.pChipName;
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::vector<std::pair<std::string, std::string>> sass_metric_list() {
  const Api& a = api();
  const std::string name = chip();
  auto n = WS_CUPTI_PARAMS(CUpti_SassMetrics_GetNumOfMetrics_Params);
  n.pChipName = name.c_str();
  check(a.cuptiSassMetricsGetNumOfMetrics(&n), "counting the metrics");
  std::vector<CUpti_SassMetrics_MetricDetails> list(n.numOfMetrics);
  auto g = WS_CUPTI_PARAMS(CUpti_SassMetrics_GetMetrics_Params);
  g.pChipName = name.c_str();
  g.numOfMetrics = list.size();
  g.pMetricsList = list.data();
  check(a.cuptiSassMetricsGetMetrics(&g), "listing the metrics");
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& m : list)
    out.push_back({m.pMetricName ? m.pMetricName : "", m.pMetricDescription ? m.pMetricDescription : ""});
  return out;
}

SassMetrics sass_metrics(const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays,
                         const std::vector<std::string>& metrics) {
  const Api& a = api();
  const std::string name = chip();
  int dev = 0;
  detail::check(cudaGetDevice(&dev), "asking for the device");
  SassMetrics out;
  out.metrics = metrics;
  std::vector<CUpti_SassMetrics_Config> configs;
  std::vector<uint64_t> ids;
  for (const std::string& m : metrics) {
    auto pr = WS_CUPTI_PARAMS(CUpti_SassMetrics_GetProperties_Params);
    pr.pChipName = name.c_str();
    pr.pMetricName = m.c_str();
    check(a.cuptiSassMetricsGetProperties(&pr), ("looking up " + m).c_str());
    configs.push_back({pr.metric.metricId, uint8_t(CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU)});
    ids.push_back(pr.metric.metricId);
  }

  detail::DeviceArrays d(k, p);
  d.upload(arrays);
  auto plain = detail::plain_runner(k, p, d);
  // Unpatched first: the launches' median, the kernel loaded and warm.
  std::vector<double> ms;
  for (int i = 0; i < 6; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    plain->launch();
    detail::sync(k.id);
    if (i) ms.push_back(since(t0));
  }
  out.plain_ms = detail::median(ms);

  auto sc = WS_CUPTI_PARAMS(CUpti_SassMetricsSetConfig_Params);
  sc.numOfMetricConfig = configs.size();
  sc.pConfigs = configs.data();
  sc.deviceIndex = uint32_t(dev);
  check(a.cuptiSassMetricsSetConfig(&sc), "configuring");
  auto en = WS_CUPTI_PARAMS(CUpti_SassMetricsEnable_Params);
  en.enableLazyPatching = 1;
  check(a.cuptiSassMetricsEnable(&en), "enabling");
  // The first launch in the range is patched; the ones after run patched as well.
  auto t0 = std::chrono::steady_clock::now();
  plain->launch();
  detail::sync(k.id);
  out.first_ms = since(t0);
  auto dp = WS_CUPTI_PARAMS(CUpti_SassMetricsGetDataProperties_Params);
  check(a.cuptiSassMetricsGetDataProperties(&dp), "sizing the data");
  std::vector<CUpti_SassMetrics_Data> data(dp.numOfPatchedInstructionRecords);
  std::vector<CUpti_SassMetrics_InstanceValue> values(dp.numOfPatchedInstructionRecords * dp.numOfInstances *
                                                      metrics.size());
  for (size_t i = 0; i < data.size(); ++i) {
    data[i].structSize = sizeof(CUpti_SassMetrics_Data);
    data[i].pInstanceValues = values.data() + i * dp.numOfInstances * metrics.size();
  }
  auto fl = WS_CUPTI_PARAMS(CUpti_SassMetricsFlushData_Params);
  fl.numOfPatchedInstructionRecords = data.size();
  fl.numOfInstances = dp.numOfInstances;
  fl.pMetricsData = data.data();
  check(a.cuptiSassMetricsFlushData(&fl), "reading the data");
  // A record is an instruction's values (one a metric and instance); the same instruction
  // may come in several records: they are added up by function and offset.
  std::map<std::pair<std::string, uint32_t>, size_t> at;
  for (const auto& r : data) {
    const std::pair<std::string, uint32_t> key{r.functionName ? r.functionName : "", r.pcOffset};
    auto [it, fresh] = at.emplace(key, out.rows.size());
    if (fresh) out.rows.push_back({key.first, key.second, std::vector<uint64_t>(metrics.size(), 0)});
    SassMetricRow& row = out.rows[it->second];
    for (size_t j = 0; j < dp.numOfInstances; ++j)
      for (size_t m = 0; m < ids.size(); ++m)
        if (r.pInstanceValues[j].metricId == ids[m]) row.values[m] += r.pInstanceValues[j].value;
  }
  ms.clear();
  for (int i = 0; i < 5; ++i) {
    t0 = std::chrono::steady_clock::now();
    plain->launch();
    detail::sync(k.id);
    ms.push_back(since(t0));
  }
  out.ms = detail::median(ms);
  auto di = WS_CUPTI_PARAMS(CUpti_SassMetricsDisable_Params);
  check(a.cuptiSassMetricsDisable(&di), "disabling");
  auto un = WS_CUPTI_PARAMS(CUpti_SassMetricsUnsetConfig_Params);
  un.deviceIndex = uint32_t(dev);
  check(a.cuptiSassMetricsUnsetConfig(&un), "clearing the configuration");
  // The outputs of the first (patched) launch's arrays are the kernel's: the later launches
  // ran on the same inputs; an in-place kernel (beta != 0) is checked by the caller if at all.
  d.download_outputs(arrays);
  return out;
}

}  // namespace ws::gpu
