// src/ptx/machine.cpp — the emulated device's memory (allocations, adopted host memory,
// a module's variables in the global and constant spaces, copies) and a launch: its checks,
// the trace's launch and files, and the blocks (block_run.h): one by one when recorded,
// spread over every core when not.
#include "ptx/machine.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <chrono>
#include <cxxabi.h>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <thread>

#include <sys/mman.h>
#include <unistd.h>

#include "ptx/block_run.h"
#include "ptx/uniform.h"

namespace ws::ptx {

namespace {
// Made on first use: a test's static initializer may set it before this file's statics are.
struct DefaultEngine {
  std::mutex mu;
  Engine engine = Engine::Interpreter;
  EngineOptions options;
};
DefaultEngine& default_engine() {
  static DefaultEngine d;
  return d;
}
}  // namespace

void set_default_engine(Engine e, EngineOptions o) {
  DefaultEngine& d = default_engine();
  std::lock_guard<std::mutex> g(d.mu);
  d.engine = e;
  d.options = std::move(o);
}

Device::Device() {
  DefaultEngine& d = default_engine();
  std::lock_guard<std::mutex> g(d.mu);
  engine_ = d.engine;
  engine_options_ = d.options;
}
Device::~Device() = default;

// The short name of a function-scope static (views name arrays by it).
std::string demangle_var(const std::string& n) {
  // _ZZ14transposeTiledPfPKfiE4tile -> transposeTiled::tile; template arguments and
  // nested names are left out (enough to tell a course's arrays apart).
  if (n.rfind("_ZZ", 0) != 0) return n;
  size_t i = 3, fl = 0;
  while (i < n.size() && std::isdigit((unsigned char)n[i])) fl = fl * 10 + size_t(n[i++] - '0');
  if (!fl || i + fl > n.size()) return n;
  const std::string fn = n.substr(i, fl);
  // The variable: the trailing <length><name> after the last 'E' that leaves exactly one.
  for (size_t e = n.size(); e-- > i + fl;) {
    if (n[e] != 'E') continue;
    size_t k = e + 1, vl = 0;
    while (k < n.size() && std::isdigit((unsigned char)n[k])) vl = vl * 10 + size_t(n[k++] - '0');
    if (vl && k + vl == n.size()) return fn + "::" + n.substr(k);
  }
  return n;
}

std::string kernel_name(const std::string& mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return mangled;
  std::string full = d;
  std::free(d);
  // A kernel in an unnamed namespace: its name without "(anonymous namespace)::", whose
  // parenthesis would end the name before it starts.
  for (size_t at; (at = full.find("(anonymous namespace)::")) != std::string::npos;) full.erase(at, 23);
  // "void transposeTiled<1>(float*, float const*, int)" -> "transposeTiled<1>"
  int depth = 0;
  size_t end = full.size(), start = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    const char c = full[i];
    if (c == '<') ++depth;
    else if (c == '>') --depth;
    else if (c == '(' && depth == 0) { end = i; break; }
    else if (c == ' ' && depth == 0) start = i + 1;
  }
  return full.substr(start, end - start);
}

// ---- memory ----------------------------------------------------------------------------

// A module's __device__ variables become allocations in the global space, its
// __constant__ ones in the constant window (16-byte aligned, as the constant bank packs
// them); module-scope shared arrays are each kernel's own, placed per launch.
void Device::load(Module m) {
  module_ = std::move(m);
  for (Kernel& k : module_.kernels) mark_reductions(k);
  build_.reset();
  interpreted_seconds_ = 0;
  uint64_t const_off = 0;
  global_values_.assign(module_.globals.size(), 0);
  for (const Variable& v : module_.globals) {
    if (v.space == Space::Shared) continue;
    auto a = std::make_unique<Alloc>();
    a->bytes = std::max<uint64_t>(v.bytes, 1);
    a->data.assign(v.init.begin(), v.init.end());
    a->data.resize(size_t(a->bytes), 0);
    a->ptr = a->data.data();
    a->name = v.name;
    a->serial = ++serials_;
    if (v.space == Space::Const) {
      const_off = (const_off + 15) / 16 * 16;
      a->base = kConstWindow + const_off;
      const_off += a->bytes;
      a->space = trace::Space::Constant;
    } else {
      next_ = (next_ + 255) / 256 * 256;
      a->base = next_;
      next_ += a->bytes;
    }
    symbols_[v.name] = a->base;
    // What an operand naming it means: an address of its own space (ld.const takes the
    // offset in the constant bank, as cvta.const makes it).
    global_values_[size_t(&v - module_.globals.data())] = v.space == Space::Const ? a->base - kConstWindow : a->base;
    const uint64_t base = a->base;
    allocs_.emplace(base, std::move(a));
  }
}

namespace {
constexpr size_t kBigPage = size_t(2) << 20, kBigArray = size_t(1) << 20;
}

template <class T>
T* Device::BigPages<T>::allocate(size_t n) {
  const size_t bytes = n * sizeof(T);
  if (bytes < kBigArray) return std::allocator<T>().allocate(n);
  const size_t whole = (bytes + kBigPage - 1) / kBigPage * kBigPage;
  void* p = std::aligned_alloc(kBigPage, whole);
  if (!p) throw std::bad_alloc();
  madvise(p, whole, MADV_HUGEPAGE);  // a hint: without it (or where refused) 4 KiB pages serve
  return static_cast<T*>(p);
}
template <class T>
void Device::BigPages<T>::deallocate(T* p, size_t n) {
  if (n * sizeof(T) < kBigArray) return std::allocator<T>().deallocate(p, n);
  std::free(p);
}
template struct Device::BigPages<uint8_t>;

uint64_t Device::malloc(uint64_t bytes, std::string name) {
  next_ = (next_ + 255) / 256 * 256;
  auto a = std::make_unique<Alloc>();
  a->base = next_;
  a->bytes = bytes;
  a->data.assign(size_t(bytes), 0);
  a->ptr = a->data.data();
  a->name = std::move(name);
  a->serial = ++serials_;
  // A gap after every array, so that a read just past its end faults as a teacher expects
  // instead of landing in the next array.
  next_ += std::max<uint64_t>(bytes, 1) + 256;
  const uint64_t base = a->base;
  allocs_.emplace(base, std::move(a));
  return base;
}

// Managed memory: the device reads and writes the host's own bytes, so nothing is copied.
uint64_t Device::adopt(void* host, uint64_t bytes, std::string name) {
  auto a = std::make_unique<Alloc>();
  a->base = uint64_t(reinterpret_cast<uintptr_t>(host));
  a->bytes = bytes;
  a->ptr = static_cast<uint8_t*>(host);
  a->name = std::move(name);
  a->serial = ++serials_;
  const uint64_t base = a->base;
  allocs_[base] = std::move(a);
  return base;
}

// A freed allocation keeps its entry, so that a late access faults naming it.
bool Device::free(uint64_t addr) {
  auto it = allocs_.find(addr);
  if (it == allocs_.end() || it->second->freed) return false;
  it->second->freed = true;
  it->second->pending.clear();  // due reductions nobody will see
  it->second->lazy = false;
  changed(*it->second);
  it->second->ptr = nullptr;
  it->second->data.clear();
  it->second->data.shrink_to_fit();
  return true;
}

// The live allocation holding [addr, addr + bytes), null when none.
Device::Alloc* Device::find(uint64_t addr, uint64_t bytes) {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return nullptr;
  --it;
  Alloc* a = it->second.get();
  // (compared without addr + bytes, which a count near 2^64 would wrap)
  if (a->freed || addr < a->base || bytes > a->bytes || addr - a->base > a->bytes - bytes) return nullptr;
  return a;
}

std::string Device::owner(uint64_t addr) const {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return "";
  --it;
  return addr < it->second->base + it->second->bytes ? it->second->name : "";
}

bool Device::to_device(uint64_t dst, const void* src, uint64_t bytes) {
  if (!bytes) return true;
  Alloc* a = find(dst, bytes);
  if (!a) return false;
  uint8_t* const p = a->ptr + (dst - a->base);
  // The same bytes again (a timing loop copies its inputs before each launch): the array
  // has not changed, and a launch alike the last may still be counted instead of run.
  if (!a->lazy.load(std::memory_order_relaxed) && std::memcmp(p, src, bytes) == 0) return true;
  settle(*a, dst - a->base, bytes, true);
  std::memcpy(p, src, bytes);
  changed(*a);
  return true;
}
bool Device::to_host(void* dst, uint64_t src, uint64_t bytes) {
  if (!bytes) return true;
  Alloc* a = find(src, bytes);
  if (!a) return false;
  settle(*a, src - a->base, bytes, false);
  std::memcpy(dst, a->ptr + (src - a->base), bytes);
  return true;
}
bool Device::device_to_device(uint64_t dst, uint64_t src, uint64_t bytes) {
  if (!bytes) return true;
  Alloc* s = find(src, bytes);
  Alloc* d = find(dst, bytes);
  if (!s || !d) return false;
  settle(*s, src - s->base, bytes, false);
  settle(*d, dst - d->base, bytes, true);
  std::memmove(d->ptr + (dst - d->base), s->ptr + (src - s->base), bytes);
  changed(*d);
  return true;
}
bool Device::memset(uint64_t dst, int value, uint64_t bytes) {
  if (!bytes) return true;
  Alloc* a = find(dst, bytes);
  if (!a) return false;
  settle(*a, dst - a->base, bytes, true);
  std::memset(a->ptr + (dst - a->base), value, bytes);
  changed(*a);
  return true;
}
uint64_t Device::symbol(const std::string& name) const {
  auto it = symbols_.find(name);
  return it == symbols_.end() ? 0 : it->second;
}

// The trace array of allocation `a`, made on its first access in this trace.
uint32_t Device::buffer_of(Alloc& a, trace::Builder& b) {
  if (a.buffer == trace::kNoBuffer) a.buffer = new_buffer(a, b);
  return a.buffer;
}

uint32_t Device::new_buffer(const Alloc& a, trace::Builder& b) {
  trace::Buffer buf;
  buf.name = demangle_var(a.name);
  buf.space = a.space;
  buf.elem_bytes = 4;
  buf.rows = 1;
  buf.cols = std::max<uint64_t>(1, a.bytes / 4);
  buf.size_bytes = a.bytes;
  return b.add_buffer(std::move(buf));
}

uint32_t Device::cluster_buffer(uint32_t shared, uint32_t rank, trace::Builder& b) {
  auto [it, fresh] = cluster_buffers_.emplace(std::pair{shared, rank}, trace::kNoBuffer);
  if (fresh) {
    trace::Buffer buf = b.trace().buffers.at(shared);
    buf.name = trace::cluster_buffer_name(buf.name, rank);
    buf.space = trace::Space::Cluster;
    buf.cta = rank + 1;
    it->second = b.add_buffer(std::move(buf));
  }
  return it->second;
}

// ---- a launch --------------------------------------------------------------------------

uint64_t Device::launch(const KernelLaunch& given, trace::Builder& b, uint64_t budget) {
  const Kernel* k = module_.kernel(given.kernel);
  if (!k) throw Fault("no kernel named " + given.kernel + " in the program's PTX");
  // A kernel with __cluster_dims__ has its clusters whatever the launch says.
  const trace::Dim3 cluster = launch_cluster(*k, given);
  KernelLaunch with_cluster;
  if (!(cluster == given.cluster)) {
    with_cluster = given;
    with_cluster.cluster = cluster;
  }
  const KernelLaunch& a = cluster == given.cluster ? given : with_cluster;
  if (const std::string why = cluster_problem(a); !why.empty())
    throw Refused("a launch of " + kernel_name(k->name) + " " + why);
  if (!k->refused.empty()) throw Refused("kernel " + kernel_name(k->name) + " cannot run: " + k->refused);
  if (a.block.count() == 0 || a.block.count() > 1024)
    throw Fault("invalid block of " + std::to_string(a.block.count()) + " threads for " + a.kernel + " (1 to 1024)");
  if (a.grid.count() == 0) throw Fault("empty grid for " + a.kernel);
  if (k->static_shared + a.dynamic_shared > kMaxSharedPerBlock)
    throw Fault("kernel " + kernel_name(k->name) + " asks for " + std::to_string(k->static_shared + a.dynamic_shared) +
                " bytes of shared memory per block: the device has " + std::to_string(kMaxSharedPerBlock));
  if (a.params.size() < k->param_bytes)
    throw Fault("kernel " + a.kernel + " expects " + std::to_string(k->param_bytes) + " bytes of parameters");
  if (buffers_for_ != &b.trace()) {  // a new trace: every array is added again on use
    for (auto& [base, x] : allocs_) x->buffer = trace::kNoBuffer;
    cluster_buffers_.clear();
    buffers_for_ = &b.trace();
  }

  trace::Launch l;
  l.kernel = kernel_name(a.kernel);
  l.grid = a.grid;
  l.block = a.block;
  l.cluster = a.cluster;
  l.dynamic_shared_bytes = a.dynamic_shared;
  // A program that times a kernel launches it hundreds of times alike: its first few show
  // the pattern, the rest only need to run (and run fast).
  l.recorded = record_first_ == 0 || ++launched_[a.kernel] <= record_first_;
  // ... and a launch alike the last one, on bytes that did not change, would only write
  // the same bytes again: it is counted, not run (unless every launch is to be recorded).
  uint64_t lanes = 0;
  if (const Repeat* same = record_first_ != 0 ? repeats(a) : nullptr) {
    const Repeat& r = *same;
    replay(r);
    l.recorded = false;
    l.same_as = r.launch;
    l.reductions_due = !r.reduced.empty();
    b.begin_launch(std::move(l));
    return 0;
  }
  b.begin_launch(std::move(l));
  if (record_first_ != 0) keep_before(a);
  begin_logs();
  const uint32_t number = uint32_t(b.trace().launches.size());
  block_budget_ = budget;
  launch_start_ = std::chrono::steady_clock::now();
  blocks_compiled_ = blocks_interpreted_ = blocks_repeated_ = 0;
  engine_begin();  // (a compile waited for is not the launch's time)
  const auto t0 = std::chrono::steady_clock::now();
  try {
    lanes = a.cluster.count() > 1  ? run_clusters(*k, a, b, budget)
            : a.cooperative        ? run_cooperative(*k, a, b, budget)
            : b.launch().recorded ? run_recorded(*k, a, b, budget)
                                  : run_unrecorded(*k, a, b, budget);
  } catch (...) {
    repeats_.erase(a.kernel);
    candidates_.erase(a.kernel);
    before_.clear();
    for (auto& [base, x] : allocs_) {
      materialize(*x);  // the reductions it logged did happen
      x->log.reset(), x->log_ok = false;
      if (x->touched) x->touched = 0, changed(*x);
    }
    throw;
  }
  b.launch().lane_accesses = lanes;
  b.launch().seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const uint32_t native = blocks_compiled_, interpreted = blocks_interpreted_;
  b.launch().engine = !native ? "interpreter" : !interpreted ? "compiled" : "interpreter, then compiled";
  if (!native) interpreted_seconds_ += b.launch().seconds;
  after_run(*k, a, number, lanes);
  return lanes;
}

void Device::engine_begin() {
  if (engine_ != Engine::Compiled) return;
  if (!build_) build_ = std::make_unique<EngineBuild>(module_, engine_options_);  // found in the cache: loaded
  if (engine_options_.wait) build_->start(true);
  engine_ready();
}

const CompiledModule* Device::engine_ready() {
  if (!build_) return nullptr;
  if (const CompiledModule* m = build_->ready()) return m;
  if (!build_->started() &&
      interpreted_seconds_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - launch_start_).count() >=
          engine_options_.after_seconds)
    build_->start(false);  // (once, whichever worker gets here first)
  return nullptr;
}

namespace {
// A hash of n bytes, four 64-bit lanes of multiply-rotate rounds folded at the end (the
// rounds of the well-known xxHash64, written here): several gigabytes a second, and any
// byte's change reaches every bit of its lane.
uint64_t bytes_hash(const uint8_t* p, uint64_t n) {
  constexpr uint64_t P1 = 0x9E3779B185EBCA87ull, P2 = 0xC2B2AE3D27D4EB4Full, P3 = 0x165667B19E3779F9ull;
  auto round = [&](uint64_t acc, uint64_t w) { return std::rotl(acc + w * P2, 31) * P1; };
  uint64_t v[4] = {P1 + P2, P2, 0, 0 - P1};
  uint64_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int j = 0; j < 4; ++j) {
      uint64_t w;
      std::memcpy(&w, p + i + 8 * j, 8);
      v[j] = round(v[j], w);
    }
  uint64_t h = std::rotl(v[0], 1) + std::rotl(v[1], 7) + std::rotl(v[2], 12) + std::rotl(v[3], 18);
  for (int j = 0; j < 4; ++j) h = (h ^ round(0, v[j])) * P1 + P3;
  for (; i < n; ++i) h = std::rotl(h ^ (p[i] * P3), 11) * P1;
  h ^= n;
  h ^= h >> 33, h *= P2, h ^= h >> 29, h *= P3, h ^= h >> 32;
  return h;
}
}  // namespace

uint64_t Device::content(Alloc& x) const {
  if (x.hashed != x.version) x.hash = bytes_hash(x.ptr, x.bytes), x.hashed = x.version;
  return x.hash;
}

bool Device::alike(const Repeat& r, const KernelLaunch& a) const {
  if (!r.same_launch(a)) return false;
  std::vector<std::pair<Alloc*, uint64_t>> compare;  // outputs written since: their bytes compared last
  for (const auto& [base, version] : r.arrays) {
    auto al = allocs_.find(base);
    if (al == allocs_.end() || al->second->freed) return false;
    if (al->second->version == version) continue;
    const uint64_t at = base;  // (a structured binding is not captured by every compiler)
    auto out = std::find_if(r.outputs.begin(), r.outputs.end(), [at](const auto& o) { return o.first == at; });
    if (out == r.outputs.end() || al->second->lazy.load()) return false;  // (reductions due: its bytes are not all there)
    compare.emplace_back(al->second.get(), out->second);
  }
  for (const Repeat::Reduced& x : r.reduced) {
    auto al = allocs_.find(x.base);
    if (al == allocs_.end() || al->second->freed || al->second->serial != x.serial) return false;
  }
  for (const auto& [base, bytes] : r.host) {
    auto al = allocs_.find(base);
    if (al == allocs_.end() || al->second->freed || al->second->bytes != bytes.size() ||
        std::memcmp(al->second->ptr, bytes.data(), bytes.size()) != 0)
      return false;
  }
  for (auto [x, hash] : compare)
    if (content(*x) != hash) return false;
  return true;
}

const Device::Repeat* Device::repeats(const KernelLaunch& a) const {
  auto it = repeats_.find(a.kernel);
  if (it == repeats_.end()) return nullptr;
  for (auto r = it->second.rbegin(); r != it->second.rend(); ++r)
    if (alike(*r, a)) return &*r;
  return nullptr;
}

// assert ends the launch when it fails (a fault, the lowest block's on any number of
// workers) and does nothing else: a kernel that only asserts is any other kernel.
bool asserts_only(const Kernel& k) {
  for (const Kernel::Linked& L : k.linked)
    if (L.builtin != Kernel::Builtin::AssertFail) return false;
  return true;
}

bool deterministic(const Kernel& k) {
  for (const Kernel::Linked& L : k.linked)
    if (L.builtin != Kernel::Builtin::None && L.builtin != Kernel::Builtin::AssertFail) return false;
  for (const Insn& in : k.code)
    for (const Operand& o : in.o)
      if (o.kind == Operand::Special)
        switch (o.sreg) {
          case Sreg::Clock: case Sreg::Clock64: case Sreg::Smid: case Sreg::Globaltimer:
          case Sreg::GlobaltimerLo: case Sreg::GlobaltimerHi: return false;
          default: break;
        }
  return true;
}

bool writes_no_memory(const Kernel& k) {
  if (!k.linked.empty()) return false;
  for (const Insn& in : k.code) {
    switch (kind_of(in.op)) {
      case Kind::Alu: case Kind::Move: case Kind::Nothing: continue;
      default: break;
    }
    switch (in.op) {
      case Opc::Ld: case Opc::Bra: case Opc::Ret: case Opc::Exit: case Opc::Bar: case Opc::Shfl: case Opc::Vote:
      case Opc::Activemask: case Opc::Redux: case Opc::Match: case Opc::Elect: continue;
      case Opc::St: if (in.space == Space::Shared || in.space == Space::Local) continue; return false;
      default: return false;
    }
  }
  return true;
}

uint64_t Device::free_memory() {
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
}

// The bytes of the arrays that kept a launch alike this one from repeating, when every
// array it touched is as that launch left it: at most 16 bytes for each lane access the
// launch made (a copy and a compare then cost far less than the launch; a small kernel
// that updates a few words of a large array is not worth it), half the memory the machine
// has free, and 8 GiB.
void Device::keep_before(const KernelLaunch& a) {
  before_.clear();
  auto it = candidates_.find(a.kernel);
  if (it == candidates_.end() || !alike(it->second, a)) return;
  const Repeat& c = it->second;
  uint64_t bytes = 0;
  for (uint64_t base : c.rewritten) bytes += allocs_.at(base)->bytes;
  if (bytes > std::min<uint64_t>({uint64_t(8) << 30, free_memory() / 2, 16 * c.lanes})) return;
  for (uint64_t base : c.rewritten) {
    Alloc& x = *allocs_.at(base);
    materialize(x);
    before_[base].assign(x.ptr, x.ptr + x.bytes);
  }
}

void Device::after_run(const Kernel& k, const KernelLaunch& a, uint32_t launch, uint64_t lanes) {
  Repeat r;
  bool repeatable = deterministic(k), candidate = repeatable;
  uint64_t host_kept = 0, hashed = 0;
  for (auto& [base, x] : allocs_) {
    std::shared_ptr<RedLog> log = std::move(x->log);
    const bool logged = x->log_ok && log;
    x->log_ok = false;
    if (!x->touched) continue;
    uint8_t t = x->touched;
    x->touched = 0;
    if (t == Alloc::kReduced && logged) {
      // Only reduced into, every reduction logged: a repeat of the launch only owes them
      // again. Those that waited behind earlier ones are due now.
      if (x->lazy) x->pending.emplace_back(log, 1);
      changed(*x);
      r.reduced.push_back({base, x->serial, std::move(log)});
      continue;
    }
    if (t & Alloc::kReduced) t = (t & ~Alloc::kReduced) | Alloc::kRead | Alloc::kWritten;
    // Read and written, but left as it was (the launch's bytes kept before it ran): the
    // same state before and after, so a launch alike it would find and leave it so again.
    auto kept = before_.find(base);
    const bool same = t == (Alloc::kRead | Alloc::kWritten) && kept != before_.end() && kept->second.size() == x->bytes &&
                      std::memcmp(kept->second.data(), x->ptr, x->bytes) == 0;
    if ((t & Alloc::kWritten) && !same) changed(*x);
    // Host memory changes behind the device's back: its bytes as the launch left them are
    // kept, where that costs little beside the launch (16 bytes a lane access, 1 GiB in
    // all), and a launch alike it must find them so (alike()); else it always runs.
    if (x->data.empty()) {
      host_kept += x->bytes;
      if (x->freed || !(repeatable || candidate) || host_kept > std::min<uint64_t>(uint64_t(1) << 30, 16 * lanes))
        repeatable = candidate = false;  // (a block the kernel's malloc made and freed has no bytes left)
      else r.host.emplace_back(base, std::vector<uint8_t>(x->ptr, x->ptr + x->bytes));
    }
    // An array both read and written may read its own results on a second run.
    if (t == (Alloc::kRead | Alloc::kWritten) && !same) repeatable = false, r.rewritten.push_back(base);
    r.arrays.emplace_back(base, x->version);
    // An array only written: its bytes' hash, where that costs little beside the launch (at
    // most 16 bytes for each of its lane accesses, as keep_before).
    if (t == Alloc::kWritten && !x->data.empty() && !x->lazy.load() && (hashed += x->bytes) <= 16 * lanes)
      r.outputs.emplace_back(base, content(*x));
  }
  before_.clear();
  std::vector<Repeat>& kept = repeats_[a.kernel];  // (one of the same shape and parameters: this launch supersedes it)
  kept.erase(std::remove_if(kept.begin(), kept.end(), [&](const Repeat& o) { return o.same_launch(a); }), kept.end());
  candidates_.erase(a.kernel);
  if (!repeatable && !candidate) return;
  r.grid = a.grid, r.block = a.block, r.dynamic_shared = a.dynamic_shared, r.params = a.params, r.launch = launch;
  r.lanes = lanes;
  if (!repeatable) {
    candidates_[a.kernel] = std::move(r);
    return;
  }
  // (Host memory's bytes, up to 1 GiB a launch, are kept for the latest launch alone.)
  kept.erase(std::remove_if(kept.begin(), kept.end(), [](const Repeat& o) { return !o.host.empty(); }), kept.end());
  if (kept.size() == kRepeatsKept) kept.erase(kept.begin());
  kept.push_back(std::move(r));
}

// The blocks one by one, each access a record: the trace's files first (the module's .file
// entries, added once per trace), and after the blocks each site's one array.
// The trace's file index of each .file number of the module (added on first use).
std::vector<uint32_t> Device::trace_files(trace::Builder& b) {
  std::vector<uint32_t> files;
  uint32_t max_file = 0;
  for (auto& [n, p] : module_.files) max_file = std::max(max_file, n);
  files.assign(max_file + 1, trace::kNoBuffer);
  trace::Trace& t = b.trace();
  for (auto& [n, path] : module_.files) {
    for (size_t i = 0; i < t.files.size(); ++i)
      if (t.files[i].name == path) files[n] = uint32_t(i);
    if (files[n] == trace::kNoBuffer) files[n] = b.add_file(path, "");
  }
  return files;
}

// A site is an instruction of this launch (sites are added per launch): its buffer is the
// one array its records reach, if one.
namespace {
constexpr uint32_t kUnseen = trace::kNoBuffer - 1;  // (a buffer index never reaches it)
}  // namespace

void Device::SiteBuffers::take(const trace::Trace& t) {
  for (; fed < t.records.size(); ++fed) {
    const trace::Record& r = t.records[fed];
    const uint32_t array = r.lanes ? trace::kNoBuffer : r.buffer;
    if (r.site >= buf.size()) buf.resize(r.site + 1, kUnseen);
    uint32_t& b = buf[r.site];
    b = b == kUnseen || b == array ? array : trace::kNoBuffer;
  }
}

void Device::SiteBuffers::settle(trace::Trace& t) {
  take(t);
  for (size_t s = 0; s < buf.size() && s < t.sites.size(); ++s)
    if (buf[s] != kUnseen) t.sites[s].buffer = buf[s];
}

uint64_t Device::run_recorded(const Kernel& k, const KernelLaunch& a, trace::Builder& b, uint64_t budget) {
  std::vector<uint32_t> files = trace_files(b);
  trace::Trace& t = b.trace();
  uint64_t lanes = 0;
  const size_t first_record = t.records.size();
  SiteBuffers sites(first_record);
  uint64_t left = budget;
  BlockRun run(*this, k, a, b, files, left);
  const uint32_t nblocks = uint32_t(a.grid.count());
  const uint32_t cores = threads_ ? threads_ : std::max(1u, std::thread::hardware_concurrency());
  const bool may = cores > 1 && run.parallel_kernel(false);  // (asked once: it never changes)
  for (uint32_t blk = 0; blk < nblocks; ++blk) {
    // Once the blocks before have made the trace's sites and arrays, the rest of the blocks
    // on every core where the kernel allows it.
    if (blk > 0 && may && nblocks - blk > 1 && run.parallel_blocks(b.room())) {
      try {
        lanes += run_parallel(k, a, b, run, blk, std::min(cores, nblocks - blk), budget, sites);
      } catch (...) {
        sites.settle(t);
        throw;
      }
      break;
    }
    try {
      left = budget;  // each block its own
      lanes += run.run(blk);
    } catch (...) {
      b.block_done(blk);  // its requests up to the fault are in the trace
      sites.settle(t);
      throw;
    }
    b.block_done(blk);
    if (blk == 0) b.expect((t.records.size() - first_record) * (a.grid.count() - 1));  // blocks mostly alike
  }
  sites.settle(t);
  return lanes;
}

// The blocks with nothing recorded, taken in order by one worker per core. Blocks share
// only global memory (atomics serialised by atomics_); each block has the budget to
// itself. After a fault no new block starts, so every block below the
// faulting one has run, and the lowest fault is the one a single worker would have met.
// A kernel that prints (or allocates) runs on one worker: its lines (and addresses) keep
// their block order; one that asserts runs on all, its first failure a fault like any.
uint64_t Device::run_unrecorded(const Kernel& k, const KernelLaunch& a, trace::Builder& b, uint64_t budget) {
  const uint32_t nblocks = uint32_t(a.grid.count());
  uint32_t n = threads_ ? threads_ : std::max(1u, std::thread::hardware_concurrency());
  for (const Kernel::Linked& L : k.linked)
    if (L.builtin != Kernel::Builtin::None && L.builtin != Kernel::Builtin::AssertFail) n = 1;
  n = std::min(n, nblocks);
  // Blocks are taken a few at a time where there are many (a grid of small blocks: each
  // taken alone, the workers passed the counter's cache line to and fro block after block),
  // still in order within each worker, every block below a fault run.
  const uint32_t chunk = std::clamp(nblocks / (n * 256), 1u, 16u);
  alignas(64) std::atomic<uint32_t> next{0};
  alignas(64) std::atomic<uint32_t> fault_block{UINT32_MAX};
  std::atomic<uint64_t> lanes{0};
  std::mutex fault_mu;
  std::exception_ptr fault;
  auto work = [&] {
    uint32_t blk = UINT32_MAX;
    try {
      std::vector<uint32_t> files;  // no sites are made
      uint64_t mine = 0;            // the block's budget
      BlockRun run(*this, k, a, b, files, mine);
      run.unrecorded(n > 1 ? &atomics_ : nullptr);
      uint64_t done = 0;
      for (uint32_t first; (first = next.fetch_add(chunk)) < nblocks;)
        for (blk = first; blk < std::min(nblocks, first + chunk) && blk < fault_block.load(std::memory_order_relaxed); ++blk) {
          mine = budget;
          done += run.run(blk);
        }
      lanes += done;
    } catch (...) {
      // (A worker that could not even start fails the launch as its first block would.)
      const uint32_t at = blk == UINT32_MAX ? 0 : blk;
      std::lock_guard<std::mutex> g(fault_mu);
      if (!fault || at < fault_block.load()) {
        fault_block = at;
        fault = std::current_exception();
      }
    }
  };
  std::vector<std::thread> workers;
  for (uint32_t i = 1; i < n; ++i) workers.emplace_back(work);
  work();
  for (std::thread& w : workers) w.join();
  if (fault) std::rethrow_exception(fault);
  return lanes;
}

}  // namespace ws::ptx
