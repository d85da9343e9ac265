// tools/gpu_tracer/tracer.cpp — the GPU tracer: a Compute Sanitizer API tool that the CUDA
// driver loads into the user's program (CUDA_INJECTION64_PATH=libwarpscope_tracer.so). It
// patches the global and shared memory instructions (those of the spaces asked for) and the
// barriers of each module the program loads with the functions of patch.cu, gives each
// launch a device buffer of records, and after the launch copies the records back and
// appends them to $WARPSCOPE_GPU_TRACE (sass/raw.h), with the modules' cubins and the
// program's allocations. A kernel's launches past its first WARPSCOPE_RECORD_LAUNCHES run
// with their module unpatched, at the plain kernel's speed: only their shape and time are
// written. warpscope turns that file into a trace (sass/import.h). Its settings,
// WARPSCOPE_GPU_TIMES (timing instead of tracing, timer.cpp) among them, are declared in
// program/environment.h.
#include <dlfcn.h>
#include <sanitizer.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "device_state.h"
#include "env/environment.h"
#include "program/program.h"
#include "sass/raw.h"
#include "timer.h"

namespace {

using ws::sass::ChunkType;
using ws::sass::DeviceRecord;
using ws::sass::LaunchHead;
using ws::tracer::DeviceState;

bool g_debug = false;  // WARPSCOPE_TRACER_DEBUG: each callback on stderr

// The program's own allocations: the runtime's cudaMalloc* calls but cudaMallocHost and
// cudaMallocArray, by their ids in the runtime-API domain (sanitizer_runtime_cbid.h). Each
// one's first parameter is where the pointer goes (void** devPtr; cudaMalloc3D's
// cudaPitchedPtr* begins with it); cudaMalloc3DArray's and cudaMallocMipmappedArray's get
// an array handle there, which matches no allocation and so marks none.
bool program_allocates(Sanitizer_CallbackId cbid) {
  switch (cbid) {
    case SANITIZER_CBID_RUNTIME_API_cudaMalloc:
    case SANITIZER_CBID_RUNTIME_API_cudaMallocPitch:
    case SANITIZER_CBID_RUNTIME_API_cudaMalloc3D:
    case SANITIZER_CBID_RUNTIME_API_cudaMalloc3DArray:
    case SANITIZER_CBID_RUNTIME_API_cudaMallocMipmappedArray:
    case SANITIZER_CBID_RUNTIME_API_cudaMallocManaged:
    case SANITIZER_CBID_RUNTIME_API_cudaMallocAsync:
    case SANITIZER_CBID_RUNTIME_API_cudaMallocAsync_ptsz:
    case SANITIZER_CBID_RUNTIME_API_cudaMallocFromPoolAsync:
    case SANITIZER_CBID_RUNTIME_API_cudaMallocFromPoolAsync_ptsz:
      return true;
    default:
      return false;
  }
}

struct PendingLaunch {
  LaunchHead head;
  bool recorded = true;  // false: run unpatched
  std::chrono::steady_clock::time_point start;
  std::string name;
  CUcontext ctx = nullptr;
  Sanitizer_StreamHandle stream = nullptr;
  DeviceState host;
};

struct ContextBuffers {
  DeviceState* state = nullptr;
  DeviceRecord* records = nullptr;
  uint64_t record_cap = 0;
  uint32_t* epochs = nullptr;
  uint64_t epoch_cap = 0;
};

struct Tracer {
  std::mutex mu;
  FILE* out = nullptr;
  std::string patch_path;
  uint32_t block_lo = 0, block_hi = ~0u;
  uint64_t budget = 0;  // records left to keep (WARPSCOPE_TRACE_MAX_RECORDS)
  uint32_t spaces = ws::sass::kRawSpaceGlobal | ws::sass::kRawSpaceShared;  // WARPSCOPE_TRACE_SPACES
  uint64_t record_launches = 0;  // of each kernel (WARPSCOPE_RECORD_LAUNCHES; 0: all)
  std::map<std::pair<CUmodule, std::string>, uint64_t> launches_of;  // launches begun, by kernel
  std::map<CUmodule, bool> module_patched;
  std::set<CUcontext> patched_contexts;
  std::map<CUcontext, ContextBuffers> buffers;
  std::map<uint64_t, PendingLaunch> pending;  // by launch handle
  bool failed = false;

  void chunk(ChunkType type, const void* a, uint64_t an, const void* b = nullptr, uint64_t bn = 0) {
    if (!out) return;
    const uint64_t bytes = an + bn, padded = (bytes + 7) / 8 * 8;
    ws::sass::ChunkHead head;
    head.type = uint32_t(type);
    head.bytes = padded;
    std::fwrite(&head, sizeof head, 1, out);
    if (an) std::fwrite(a, 1, an, out);
    if (bn) std::fwrite(b, 1, bn, out);
    static const char zeros[8] = {};
    if (padded > bytes) std::fwrite(zeros, 1, padded - bytes, out);
  }

  void warn(const char* what, SanitizerResult r) {
    std::fprintf(stderr, "warpscope tracer: %s failed (%d)\n", what, int(r));
    failed = true;
  }

  void module_loaded(const Sanitizer_ResourceModuleData* m) {
    std::lock_guard<std::mutex> lock(mu);
    if (!out) return;
    if (!patched_contexts.count(m->context)) {
      if (SanitizerResult r = sanitizerAddPatchesFromFile(patch_path.c_str(), m->context); r != SANITIZER_SUCCESS) {
        std::fprintf(stderr, "warpscope tracer: cannot load the patches from %s\n", patch_path.c_str());
        warn("sanitizerAddPatchesFromFile", r);
        return;
      }
      patched_contexts.insert(m->context);
    }
    patch(m->module);
    const uint64_t id = reinterpret_cast<uint64_t>(m->module);
    if (g_debug) std::fprintf(stderr, "warpscope tracer: module %p patched, cubin %zu bytes\n", (void*)m->module, m->cubinSize);
    chunk(ChunkType::Module, &id, sizeof id, m->pCubin, m->cubinSize);
  }

  // Patches `module`'s instructions of the spaces asked for (barriers with shared memory:
  // they order its accesses between the warps of a block).
  void patch(CUmodule module) {
    const bool global = spaces & ws::sass::kRawSpaceGlobal, shared = spaces & ws::sass::kRawSpaceShared;
    // A patch fatbin without these functions (built without --keep-device-functions) would
    // leave every launch untraced in silence.
    for (const auto& [kind, fn, wanted] :
         {std::tuple{SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, "ws_global_access", global},
          std::tuple{SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, "ws_shared_access", shared},
          std::tuple{SANITIZER_INSTRUCTION_BARRIER, "ws_barrier", shared}})
      if (!wanted) continue;
      else if (SanitizerResult r = sanitizerPatchInstructions(kind, module, fn); r != SANITIZER_SUCCESS) {
        std::fprintf(stderr, "warpscope tracer: the patches in %s have no %s\n", patch_path.c_str(), fn);
        warn("sanitizerPatchInstructions", r);
      }
    // The instructions of async copies and matrix loads: a Sanitizer that does not know one
    // leaves it unrecorded, which the trace's counts show; said under WARPSCOPE_TRACER_DEBUG.
    for (const auto& [kind, fn, wanted] :
         {std::tuple{SANITIZER_INSTRUCTION_MATRIX_MEMORY_ACCESS, "ws_matrix_access", shared},
          std::tuple{SANITIZER_INSTRUCTION_MEMCPY_ASYNC, "ws_memcpy_async", true},
          std::tuple{SANITIZER_INSTRUCTION_PIPELINE_COMMIT, "ws_pipeline_commit", true},
          std::tuple{SANITIZER_INSTRUCTION_PIPELINE_WAIT, "ws_pipeline_wait", true}})
      if (!wanted) continue;
      else if (SanitizerResult r = sanitizerPatchInstructions(kind, module, fn); r != SANITIZER_SUCCESS && g_debug)
        std::fprintf(stderr, "warpscope tracer: %s not patched (%d)\n", fn, int(r));
    if (SanitizerResult r = sanitizerPatchModule(module); r != SANITIZER_SUCCESS) warn("sanitizerPatchModule", r);
    module_patched[module] = true;
  }

  // Whether this launch of its kernel is recorded: its module patched for it, or unpatched
  // (at the plain kernel's speed) once the kernel's first launches were recorded.
  bool patch_for(const Sanitizer_LaunchData* l) {
    const uint64_t n = ++launches_of[{l->module, l->functionName ? l->functionName : ""}];
    const bool record = record_launches == 0 || n <= record_launches;
    const bool patched = module_patched[l->module];
    if (record && !patched) {
      patch(l->module);
    } else if (!record && patched) {
      if (SanitizerResult r = sanitizerUnpatchModule(l->module); r != SANITIZER_SUCCESS) {
        warn("sanitizerUnpatchModule", r);
        return true;  // still patched: recorded
      }
      module_patched[l->module] = false;
    }
    return record;
  }

  void allocated(const Sanitizer_ResourceMemoryData* a) {
    std::lock_guard<std::mutex> lock(mu);
    const uint64_t flags = (a->flags & SANITIZER_MEMORY_FLAG_MODULE) ? uint64_t(ws::sass::kAllocModule) : uint64_t(0);
    const ws::sass::AllocChunk v{a->address, a->size, flags};
    chunk(ChunkType::Alloc, &v, sizeof v);
  }

  // `name`: what the program's line of the call names it ("" where it has no line).
  void program_alloc(uint64_t address, const std::string& name) {
    std::lock_guard<std::mutex> lock(mu);
    chunk(ChunkType::ProgramAlloc, &address, sizeof address, name.c_str(), name.empty() ? 0 : name.size() + 1);
  }

  // A device buffer of `p` holding at least `want` elements, grown (never shrunk) in
  // `ctx`; false when it could not be (then `p` is null and `cap` 0).
  template <class T>
  static bool grow(CUcontext ctx, T*& p, uint64_t& cap, uint64_t want) {
    if (want <= cap) return true;
    if (p) sanitizerFree(ctx, p);
    p = nullptr;
    cap = 0;
    if (sanitizerAlloc(ctx, reinterpret_cast<void**>(&p), want * sizeof(T)) != SANITIZER_SUCCESS) return false;
    cap = want;
    return true;
  }

  void launch_begin(const Sanitizer_LaunchData* l) {
    std::lock_guard<std::mutex> lock(mu);
    if (!out || !patched_contexts.count(l->context)) return;
    if (g_debug) std::fprintf(stderr, "warpscope tracer: launch %s\n", l->functionName ? l->functionName : "?");
    PendingLaunch L;
    L.name = l->functionName ? l->functionName : "?";
    L.ctx = l->context;
    L.stream = l->hStream;
    L.recorded = patch_for(l);
    LaunchHead& h = L.head;
    h.module = reinterpret_cast<uint64_t>(l->module);
    uint64_t size = 0;
    sanitizerGetFunctionPcAndSize(l->module, l->functionName, &h.function_pc, &size);
    h.grid[0] = l->gridDim_x, h.grid[1] = l->gridDim_y, h.grid[2] = l->gridDim_z;
    h.block[0] = l->blockDim_x, h.block[1] = l->blockDim_y, h.block[2] = l->blockDim_z;
    h.name_bytes = uint32_t(L.name.size());
    const uint64_t key = reinterpret_cast<uint64_t>(l->hLaunch);
    if (!L.recorded) {
      L.start = std::chrono::steady_clock::now();
      pending[key] = std::move(L);
      return;
    }
    const uint64_t blocks = uint64_t(h.grid[0]) * h.grid[1] * h.grid[2];
    h.block_lo = uint32_t(std::min<uint64_t>(block_lo, blocks));
    h.block_hi = uint32_t(std::min<uint64_t>(block_hi, blocks));
    const uint32_t threads = h.block[0] * h.block[1] * h.block[2];
    const uint32_t wpb = (threads + 31) / 32;
    ContextBuffers& b = buffers[l->context];
    // One buffer of records per context, reused launch after launch (each is read back at
    // its end); the epochs grow with the largest grid recorded.
    const uint64_t want = std::min<uint64_t>(budget, 1u << 20);
    if (!b.state && sanitizerAlloc(l->context, reinterpret_cast<void**>(&b.state), sizeof(DeviceState)) != SANITIZER_SUCCESS) {
      warn("sanitizerAlloc (state)", SANITIZER_ERROR_OUT_OF_MEMORY);
      return;
    }
    grow(l->context, b.records, b.record_cap, want);
    const uint64_t nwarps = uint64_t(h.block_hi - h.block_lo) * wpb, nepochs = 2 * nwarps;
    const bool epochs = grow(l->context, b.epochs, b.epoch_cap, nepochs);
    if (epochs && nepochs) sanitizerMemset(b.epochs, 0, nepochs * sizeof(uint32_t), l->hStream);
    L.host.count = 0;
    L.host.cap = std::min<uint64_t>(budget, b.record_cap);
    L.host.records = b.records;
    L.host.epochs = epochs ? b.epochs : nullptr;
    L.host.block_lo = h.block_lo;
    L.host.block_hi = h.block_hi;
    L.host.warps_per_block = wpb;
    L.host.warps = nwarps;
    L.host.full = 0;
    L.host.spaces = spaces;
    PendingLaunch& kept = pending[key] = std::move(L);
    sanitizerMemcpyHostToDeviceAsync(b.state, &kept.host, sizeof(DeviceState), l->hStream);
    sanitizerSetLaunchCallbackData(l->hLaunch, l->function, l->hStream, b.state);
    kept.start = std::chrono::steady_clock::now();
  }

  void write_launch(const PendingLaunch& L, const DeviceRecord* recs, size_t n) {
    std::vector<char> head(sizeof(LaunchHead) + (L.name.size() + 7) / 8 * 8, 0);
    std::memcpy(head.data(), &L.head, sizeof(LaunchHead));
    std::memcpy(head.data() + sizeof(LaunchHead), L.name.data(), L.name.size());
    chunk(ChunkType::Launch, head.data(), head.size(), recs, n * sizeof(DeviceRecord));
  }

  void launch_end(const Sanitizer_LaunchData* l) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = pending.find(reinterpret_cast<uint64_t>(l->hLaunch));
    if (it == pending.end()) return;
    PendingLaunch L = std::move(it->second);
    pending.erase(it);
    ContextBuffers& b = buffers[L.ctx];
    sanitizerStreamSynchronize(L.stream);
    L.head.nanoseconds = uint64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - L.start).count());
    const ws::sass::LaunchNoteChunk note{spaces, L.recorded ? 0u : 1u};
    if (!L.recorded) {
      write_launch(L, nullptr, 0);
      chunk(ChunkType::LaunchNote, &note, sizeof note);
      std::fflush(out);
      return;
    }
    DeviceState st;
    sanitizerMemcpyDeviceToHost(&st, b.state, sizeof st, L.stream);
    L.head.kept = std::min<uint64_t>(st.count, L.host.cap);
    // Executed: each warp's own count (the records' counter stops at the cap).
    L.head.executed = L.head.kept;
    std::vector<uint32_t> per_warp;
    if (L.host.epochs && L.host.warps) {
      per_warp.resize(L.host.warps);
      sanitizerMemcpyDeviceToHost(per_warp.data(), L.host.epochs + L.host.warps, per_warp.size() * sizeof(uint32_t),
                                  L.stream);
      uint64_t sum = 0;
      for (uint32_t n : per_warp) sum += n;
      L.head.executed = std::max<uint64_t>(sum, L.head.kept);
    }
    std::vector<DeviceRecord> recs(L.head.kept);
    if (!recs.empty()) sanitizerMemcpyDeviceToHost(recs.data(), b.records, recs.size() * sizeof(DeviceRecord), L.stream);
    budget -= std::min<uint64_t>(budget, L.head.kept);
    write_launch(L, recs.data(), recs.size());
    chunk(ChunkType::LaunchNote, &note, sizeof note);
    if (!per_warp.empty()) {
      const ws::sass::WarpCountsHead counts_head{L.host.warps_per_block, uint32_t(per_warp.size())};
      chunk(ChunkType::WarpCounts, &counts_head, sizeof counts_head, per_warp.data(), per_warp.size() * sizeof(uint32_t));
    }
    std::fflush(out);
  }
};

Tracer* g_tracer = nullptr;

void on_callback(void* userdata, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void* cbdata) {
  auto* t = static_cast<Tracer*>(userdata);
  if (g_debug) std::fprintf(stderr, "warpscope tracer: callback domain %d id %d\n", int(domain), int(cbid));
  // The program's own allocations, told from those the runtime and the driver make for
  // themselves (the first call initialising the context).
  if (domain == SANITIZER_CB_DOMAIN_RUNTIME_API) {
    const auto* api = static_cast<const Sanitizer_CallbackData*>(cbdata);
    if (api->callbackSite == SANITIZER_API_EXIT && api->functionParams && program_allocates(cbid)) {
      void** out = *static_cast<void** const*>(api->functionParams);
      // Called back on the program's own thread, inside its call: the call's line is on
      // this stack.
      if (out && *out) t->program_alloc(reinterpret_cast<uint64_t>(*out), ws::program::name_of_stack_call());
    }
  } else if (domain == SANITIZER_CB_DOMAIN_RESOURCE) {
    if (cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED)
      t->module_loaded(static_cast<const Sanitizer_ResourceModuleData*>(cbdata));
    else if (cbid == SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC)
      t->allocated(static_cast<const Sanitizer_ResourceMemoryData*>(cbdata));
  } else if (domain == SANITIZER_CB_DOMAIN_LAUNCH) {
    if (cbid == SANITIZER_CBID_LAUNCH_BEGIN)
      t->launch_begin(static_cast<const Sanitizer_LaunchData*>(cbdata));
    else if (cbid == SANITIZER_CBID_LAUNCH_END)
      t->launch_end(static_cast<const Sanitizer_LaunchData*>(cbdata));
  }
}

std::string beside_this_library(const char* file) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&beside_this_library), &info) && info.dli_fname) {
    std::string p = info.dli_fname;
    const size_t slash = p.rfind('/');
    return (slash == std::string::npos ? std::string(".") : p.substr(0, slash)) + "/" + file;
  }
  return file;
}

ws::tracer::Timer* g_timer = nullptr;

void on_timer_callback(void* userdata, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void* cbdata) {
  ws::tracer::timer_callback(static_cast<ws::tracer::Timer*>(userdata), domain, cbid, cbdata);
}

void finish();

// Subscribes `f` (with `data`) to `domains`, the file closed at exit; said on stderr when
// another Sanitizer API tool holds the subscription (`what`: "tracing" or "timing").
void subscribe(Sanitizer_CallbackFunc f, void* data, std::initializer_list<Sanitizer_CallbackDomain> domains,
               const char* what) {
  Sanitizer_SubscriberHandle handle;
  if (sanitizerSubscribe(&handle, f, data) != SANITIZER_SUCCESS) {
    std::fprintf(stderr, "warpscope tracer: another Sanitizer API tool is attached (compute-sanitizer?); not %s\n", what);
    return;
  }
  for (Sanitizer_CallbackDomain d : domains) sanitizerEnableDomain(1, handle, d);
  std::atexit(finish);
}

void finish() {
  ws::tracer::stop_timer(g_timer);
  if (g_tracer && g_tracer->out) {
    std::lock_guard<std::mutex> lock(g_tracer->mu);
    std::fclose(g_tracer->out);
    g_tracer->out = nullptr;
  }
}

}  // namespace

// Called by the CUDA driver when it loads the library. Returns 1 (success) in every case:
// without WARPSCOPE_GPU_TRACE, or when another tool holds the Sanitizer API, the program
// runs untraced.
extern "C" int InitializeInjection() {
  if (g_tracer || g_timer) return 1;
  using ws::env::Var;
  g_debug = ws::env::get_flag(Var::tracer_debug);
  if (ws::env::is_set(Var::gpu_times)) {
    g_timer = ws::tracer::start_timer(ws::env::get_string(Var::gpu_times).c_str(), g_debug);
    if (g_timer)
      subscribe(on_timer_callback, g_timer,
                {SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CB_DOMAIN_DRIVER_API, SANITIZER_CB_DOMAIN_RUNTIME_API}, "timing");
    return 1;
  }
  if (!ws::env::is_set(Var::gpu_trace)) return 1;
  const std::string path = ws::env::get_string(Var::gpu_trace);
  auto* t = new Tracer();
  t->out = std::fopen(path.c_str(), "wb");
  if (!t->out) {
    std::fprintf(stderr, "warpscope tracer: cannot write %s\n", path.c_str());
    return 1;
  }
  const ws::sass::FileHead head;
  std::fwrite(&head, sizeof head, 1, t->out);
  t->patch_path = ws::env::is_set(Var::tracer_patch) ? ws::env::get_string(Var::tracer_patch)
                                                      : beside_this_library("warpscope_tracer_patch.fatbin");
  if (const std::string blocks = ws::env::get_string(Var::trace_blocks); blocks != "all") {
    unsigned lo = 0, hi = 0;
    if (std::sscanf(blocks.c_str(), "%u-%u", &lo, &hi) == 2 && hi >= lo) t->block_lo = lo, t->block_hi = hi + 1;
    else if (std::sscanf(blocks.c_str(), "%u", &lo) == 1) t->block_lo = lo, t->block_hi = lo + 1;
  }
  t->budget = ws::env::get_int(Var::trace_max_records);
  t->record_launches = ws::env::get_int(Var::record_launches);
  if (const std::string sp = ws::env::get_string(Var::trace_spaces); sp == "global") t->spaces = ws::sass::kRawSpaceGlobal;
  else if (sp == "shared") t->spaces = ws::sass::kRawSpaceShared;
  g_tracer = t;
  if (g_debug) std::fprintf(stderr, "warpscope tracer: patches from %s\n", t->patch_path.c_str());
  subscribe(on_callback, t, {SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CB_DOMAIN_LAUNCH, SANITIZER_CB_DOMAIN_RUNTIME_API},
            "tracing");
  return 1;  // the driver's convention: 1 keeps the library loaded (0 unloads it)
}
