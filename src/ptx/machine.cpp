// The emulated device: memory, and the lock-step warp interpreter.
#include "ptx/machine.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cctype>
#include <chrono>
#include <cxxabi.h>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <unordered_map>

namespace ws::ptx {

Device::Device() = default;
Device::~Device() = default;

namespace {

uint64_t width_mask(Type t) {
  const uint32_t b = type_bytes(t);
  return b >= 8 ? ~0ull : b == 0 ? ~0ull : (1ull << (8 * b)) - 1;
}
int64_t sext(Type t, uint64_t v) {
  const uint32_t b = type_bytes(t);
  if (b >= 8 || b == 0) return int64_t(v);
  const uint32_t sh = 64 - 8 * b;
  return int64_t(v << sh) >> sh;
}
float f32(uint64_t v) { return std::bit_cast<float>(uint32_t(v)); }
double f64(uint64_t v) { return std::bit_cast<double>(v); }
uint64_t bits(float f) { return std::bit_cast<uint32_t>(f); }
uint64_t bits(double d) { return std::bit_cast<uint64_t>(d); }

double as_double(Type t, uint64_t v) { return t == Type::F64 ? f64(v) : double(f32(v)); }
uint64_t from_double(Type t, double d) { return t == Type::F64 ? bits(d) : bits(float(d)); }

double round_by(Rnd r, double x) {
  switch (r) {
    case Rnd::Rni: case Rnd::Rn: return std::nearbyint(x);
    case Rnd::Rmi: case Rnd::Rm: return std::floor(x);
    case Rnd::Rpi: case Rnd::Rp: return std::ceil(x);
    default: return std::trunc(x);
  }
}

// Float -> integer as cvt does: rounded, saturated to the type's range, NaN to 0.
uint64_t float_to_int(Type dst, double x, Rnd r) {
  if (std::isnan(x)) return 0;
  x = round_by(r, x);
  const uint32_t b = type_bytes(dst);
  if (is_signed(dst)) {
    const double lo = -std::ldexp(1.0, int(8 * b - 1)), hi = std::ldexp(1.0, int(8 * b - 1)) - 1;
    if (x <= lo) return uint64_t(int64_t(lo)) & width_mask(dst);
    if (x >= hi) return b >= 8 ? uint64_t(std::numeric_limits<int64_t>::max()) : uint64_t(int64_t(hi));
    return uint64_t(int64_t(x)) & width_mask(dst);
  }
  if (x <= 0) return 0;
  const double hi = std::ldexp(1.0, int(8 * b)) - 1;
  if (x >= hi) return b >= 8 ? ~0ull : uint64_t(hi);
  return uint64_t(x);
}

bool compare(Cmp c, Type t, uint64_t a, uint64_t b) {
  if (is_float(t)) {
    const double x = as_double(t, a), y = as_double(t, b);
    const bool un = std::isnan(x) || std::isnan(y);
    switch (c) {
      case Cmp::Eq: return !un && x == y;
      case Cmp::Ne: return !un && x != y;
      case Cmp::Lt: return !un && x < y;
      case Cmp::Le: return !un && x <= y;
      case Cmp::Gt: return !un && x > y;
      case Cmp::Ge: return !un && x >= y;
      case Cmp::Equ: return un || x == y;
      case Cmp::Neu: return un || x != y;
      case Cmp::Ltu: return un || x < y;
      case Cmp::Leu: return un || x <= y;
      case Cmp::Gtu: return un || x > y;
      case Cmp::Geu: return un || x >= y;
      case Cmp::Num: return !un;
      case Cmp::Nan: return un;
      default: return false;
    }
  }
  const uint64_t m = width_mask(t);
  const uint64_t ua = a & m, ub = b & m;
  const int64_t sa = sext(t, a), sb = sext(t, b);
  const bool s = is_signed(t);
  switch (c) {
    case Cmp::Eq: return ua == ub;
    case Cmp::Ne: return ua != ub;
    case Cmp::Lt: return s ? sa < sb : ua < ub;
    case Cmp::Le: return s ? sa <= sb : ua <= ub;
    case Cmp::Gt: return s ? sa > sb : ua > ub;
    case Cmp::Ge: return s ? sa >= sb : ua >= ub;
    case Cmp::Lo: return ua < ub;
    case Cmp::Ls: return ua <= ub;
    case Cmp::Hi: return ua > ub;
    case Cmp::Hs: return ua >= ub;
    default: return false;
  }
}

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

}  // namespace

std::string kernel_name(const std::string& mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return mangled;
  std::string full = d;
  std::free(d);
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

void Device::load(Module m) {
  module_ = std::move(m);
  uint64_t const_off = 0;
  global_values_.assign(module_.globals.size(), 0);
  for (const Variable& v : module_.globals) {
    if (v.space == Space::Shared) continue;
    auto a = std::make_unique<Alloc>();
    a->bytes = std::max<uint64_t>(v.bytes, 1);
    a->data = v.init;
    a->data.resize(size_t(a->bytes), 0);
    a->ptr = a->data.data();
    a->name = v.name;
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

uint64_t Device::malloc(uint64_t bytes, std::string name) {
  next_ = (next_ + 255) / 256 * 256;
  auto a = std::make_unique<Alloc>();
  a->base = next_;
  a->bytes = bytes;
  a->data.assign(size_t(bytes), 0);
  a->ptr = a->data.data();
  a->name = std::move(name);
  // A gap after every array, so that a read just past its end faults as a teacher expects
  // instead of landing in the next array.
  next_ += std::max<uint64_t>(bytes, 1) + 256;
  const uint64_t base = a->base;
  allocs_.emplace(base, std::move(a));
  return base;
}

uint64_t Device::adopt(void* host, uint64_t bytes, std::string name) {
  auto a = std::make_unique<Alloc>();
  a->base = uint64_t(reinterpret_cast<uintptr_t>(host));
  a->bytes = bytes;
  a->ptr = static_cast<uint8_t*>(host);
  a->name = std::move(name);
  const uint64_t base = a->base;
  allocs_[base] = std::move(a);
  return base;
}

bool Device::free(uint64_t addr) {
  auto it = allocs_.find(addr);
  if (it == allocs_.end() || it->second->freed) return false;
  it->second->freed = true;
  it->second->ptr = nullptr;
  it->second->data.clear();
  it->second->data.shrink_to_fit();
  return true;
}

Device::Alloc* Device::find(uint64_t addr, uint64_t bytes) {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return nullptr;
  --it;
  Alloc* a = it->second.get();
  if (a->freed || addr < a->base || addr + bytes > a->base + a->bytes) return nullptr;
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
  std::memcpy(a->ptr + (dst - a->base), src, bytes);
  return true;
}
bool Device::to_host(void* dst, uint64_t src, uint64_t bytes) {
  if (!bytes) return true;
  Alloc* a = find(src, bytes);
  if (!a) return false;
  std::memcpy(dst, a->ptr + (src - a->base), bytes);
  return true;
}
bool Device::device_to_device(uint64_t dst, uint64_t src, uint64_t bytes) {
  if (!bytes) return true;
  Alloc* s = find(src, bytes);
  Alloc* d = find(dst, bytes);
  if (!s || !d) return false;
  std::memmove(d->ptr + (dst - d->base), s->ptr + (src - s->base), bytes);
  return true;
}
bool Device::memset(uint64_t dst, int value, uint64_t bytes) {
  if (!bytes) return true;
  Alloc* a = find(dst, bytes);
  if (!a) return false;
  std::memset(a->ptr + (dst - a->base), value, bytes);
  return true;
}
uint64_t Device::symbol(const std::string& name) const {
  auto it = symbols_.find(name);
  return it == symbols_.end() ? 0 : it->second;
}

uint32_t Device::buffer_of(Alloc& a, trace::Builder& b) {
  if (a.buffer == trace::kNoBuffer) {
    trace::Buffer buf;
    buf.name = demangle_var(a.name);
    buf.space = a.space;
    buf.elem_bytes = 4;
    buf.rows = 1;
    buf.cols = std::max<uint64_t>(1, a.bytes / 4);
    buf.size_bytes = a.bytes;
    a.buffer = b.add_buffer(std::move(buf));
  }
  return a.buffer;
}

// ---- one block -------------------------------------------------------------------------

class BlockRun {
 public:
  // One launch's blocks are run one after another by one BlockRun (run() starts each
  // with fresh memory and registers).
  BlockRun(Device& d, const Kernel& k, const KernelLaunch& a, trace::Builder& b, std::vector<uint32_t>& files,
           uint64_t& budget)
      : d_(d), k_(k), a_(a), b_(b), files_(files), budget_(budget) {
    threads_ = uint32_t(a.block.count());
    nwarps_ = (threads_ + 31) / 32;
    shared_.assign(size_t(shared_bytes()), 0);
    local_.assign(size_t(k.local_bytes) * threads_, 0);
    regs_.assign(size_t(k.registers) * 32 * nwarps_, 0);
    call_.assign(size_t(k.call_bytes) * threads_, 0);
    if (!k.linked.empty()) frames_.resize(threads_);
    warps_.resize(nwarps_);
    sites_.assign(k.code.size() * trace::kSpaceCount, trace::kNoBuffer);
    pc_shared_.assign(k.code.size(), 0);
    pc_alloc_.assign(k.code.size(), nullptr);
    // Where each shared array lies in the block's window (the extern one: the dynamic part).
    for (const Variable& v : k.shared)
      shared_range_.push_back(v.external ? std::pair<uint64_t, uint64_t>{dyn_base(), shared_.size()}
                                         : std::pair<uint64_t, uint64_t>{v.offset, v.offset + v.bytes});
  }

  uint64_t shared_bytes() const { return dyn_base() + a_.dynamic_shared; }
  uint64_t dyn_base() const { return (k_.static_shared + 15) / 16 * 16; }

  uint64_t run(uint32_t block) {
    block_ = block;
    epoch_ = 0;
    if (block) {  // what the previous block left
      std::fill(shared_.begin(), shared_.end(), 0);
      std::fill(local_.begin(), local_.end(), 0);
      std::fill(regs_.begin(), regs_.end(), 0);
      std::fill(call_.begin(), call_.end(), 0);
      for (auto& f : frames_) f.clear();
    }
    for (uint32_t w = 0; w < nwarps_; ++w) {
      const uint32_t n = std::min(32u, threads_ - w * 32);
      warps_[w] = Warp{};
      warps_[w].live = n == 32 ? ~0u : ((1u << n) - 1);
    }
    const trace::Dim3& g = a_.grid;
    ctaid_[0] = block % g.x;
    ctaid_[1] = (block / g.x) % g.y;
    ctaid_[2] = block / (g.x * g.y);
    uint64_t lanes = 0;
    for (;;) {
      bool any_live = false;
      for (uint32_t w = 0; w < nwarps_; ++w) {
        lanes += run_warp(w);
        any_live |= warps_[w].live != 0;
      }
      if (!any_live) break;
      // Every live lane waits at a barrier: release them all.
      for (Warp& w : warps_) w.at_bar = 0;
      ++epoch_;
    }
    return lanes;
  }

 private:
  struct Warp {
    uint32_t pc[32] = {};
    uint32_t live = 0, at_bar = 0;
    uint32_t seq = 0;
  };

  [[gnu::always_inline]] uint64_t& reg(uint32_t w, uint32_t r, int lane) { return regs_[(size_t(w) * k_.registers + r) * 32 + size_t(lane)]; }

  uint64_t sreg(Sreg s, uint32_t w, int lane) const {
    const uint32_t t = w * 32 + uint32_t(lane);
    const trace::Dim3& bd = a_.block;
    switch (s) {
      case Sreg::TidX: return t % bd.x;
      case Sreg::TidY: return (t / bd.x) % bd.y;
      case Sreg::TidZ: return t / (bd.x * bd.y);
      case Sreg::NtidX: return bd.x;
      case Sreg::NtidY: return bd.y;
      case Sreg::NtidZ: return bd.z;
      case Sreg::CtaidX: return ctaid_[0];
      case Sreg::CtaidY: return ctaid_[1];
      case Sreg::CtaidZ: return ctaid_[2];
      case Sreg::NctaidX: return a_.grid.x;
      case Sreg::NctaidY: return a_.grid.y;
      case Sreg::NctaidZ: return a_.grid.z;
      case Sreg::Laneid: return uint64_t(lane);
      case Sreg::Warpid: return w;
      case Sreg::Nwarpid: return nwarps_;
      case Sreg::LanemaskLt: return (1ull << lane) - 1;
      case Sreg::LanemaskLe: return (2ull << lane) - 1;
      case Sreg::LanemaskEq: return 1ull << lane;
      case Sreg::LanemaskGe: return uint32_t(~((1ull << lane) - 1));
      case Sreg::LanemaskGt: return uint32_t(~((2ull << lane) - 1));
      case Sreg::Clock: case Sreg::Clock64: return clock_;
      case Sreg::Smid: return 0;
      // The block's shared memory ends where the reserved region (cooperative groups'
      // scratch) would start; nothing is placed there.
      case Sreg::ReservedSmem: return shared_.size();
      case Sreg::DynamicSmemSize: return a_.dynamic_shared;
      case Sreg::TotalSmemSize: return shared_.size();
    }
    return 0;
  }

  uint64_t symval(uint32_t sym) const {
    const Kernel::Sym& s = k_.symbols[sym];
    switch (s.kind) {
      case Kernel::Sym::Param: return k_.params[s.index].offset;
      case Kernel::Sym::Shared: {
        const Variable& v = k_.shared[s.index];
        return v.external ? dyn_base() : v.offset;
      }
      case Kernel::Sym::Local: return s.index;
      case Kernel::Sym::Call: return kCallArea + s.index;
      case Kernel::Sym::CallParam:
      case Kernel::Sym::Ret: return 0;  // linked away
      case Kernel::Sym::Global: return d_.global_values_[s.index];
    }
    return 0;
  }

  [[gnu::always_inline]] uint64_t val(const Operand& o, uint32_t w, int lane) {
    if (o.kind == Operand::Reg) [[likely]] return reg(w, o.reg, lane);
    return val_other(o, w, lane);
  }
  [[gnu::noinline]] uint64_t val_other(const Operand& o, uint32_t w, int lane) {
    switch (o.kind) {
      case Operand::Imm: return uint64_t(o.imm);
      case Operand::Special: return sreg(o.sreg, w, lane);
      case Operand::Symbol: return symval(o.symbol);
      default: return 0;
    }
  }
  uint64_t addr(const Operand& o, uint32_t w, int lane) {
    uint64_t a = uint64_t(o.imm);
    if (o.has_reg) a += reg(w, o.reg, lane);
    if (o.has_symbol) a += symval(o.symbol);
    return a;
  }
  bool pred(const Operand& o, uint32_t w, int lane) {
    const bool v = (o.kind == Operand::Imm ? o.imm : int64_t(reg(w, o.reg, lane))) & 1;
    return o.negate ? !v : v;
  }
  [[gnu::always_inline]] void set(const Operand& o, uint32_t w, int lane, uint64_t v) {
    if (o.kind == Operand::Reg) reg(w, o.reg, lane) = v;
  }

  // ---- memory access of one lane: a host pointer, and where the record says it went.
  struct Where {
    uint8_t* p = nullptr;
    trace::Space space = trace::Space::Global;
    uint32_t buffer = 0;
    uint64_t offset = 0;
  };

  [[noreturn]] void fault(const Insn& in, uint32_t w, int lane, const std::string& array, int64_t offset, uint64_t size) {
    const uint32_t t = w * 32 + uint32_t(lane);
    const uint32_t thread[2] = {uint32_t(t % a_.block.x), uint32_t(t / a_.block.x)};
    const uint32_t blk[2] = {ctaid_[0], ctaid_[1]};
    std::string msg = trace::out_of_bounds_text(array, in.line, offset, size, thread, blk);
    msg += " (" + in.opcode + " in " + kernel_name(k_.name) + ")";
    throw Fault(msg);
  }

  Where resolve(const Insn& in, Space sp, uint64_t a, uint32_t bytes, uint32_t w, int lane) {
    if (sp == Space::Generic) {
      if (a >= kSharedWindow && a < kSharedWindow + kWindowBytes) sp = Space::Shared, a -= kSharedWindow;
      else if (a >= kLocalWindow && a < kLocalWindow + kWindowBytes) sp = Space::Local, a -= kLocalWindow;
      else if (a >= kConstWindow && a < kConstWindow + kWindowBytes) sp = Space::Const, a -= kConstWindow;
      else if (a >= kParamWindow && a < kParamWindow + kWindowBytes) sp = Space::Param, a -= kParamWindow;
      else sp = Space::Global;
    }
    Where r;
    switch (sp) {
      case Space::Shared: {
        if (a + bytes > shared_.size()) fault(in, w, lane, "shared memory", int64_t(a), shared_.size());
        r.p = shared_.data() + a;
        r.space = trace::Space::Shared;
        // The shared array that holds it (lanes mostly share the previous access's), or the
        // padding between arrays.
        const size_t i = shared_array(a, shared_hint_);
        r.buffer = shared_buffer(i);
        r.offset = i < shared_range_.size() ? a - shared_range_[i].first : a;
        return r;
      }
      case Space::Local: {
        if (a + bytes > k_.local_bytes) fault(in, w, lane, "local frame", int64_t(a), k_.local_bytes);
        r.p = local_.data() + size_t(w * 32 + uint32_t(lane)) * k_.local_bytes + a;
        r.space = trace::Space::Local;
        r.buffer = local_buffer();
        // Local memory interleaved across the warp as the hardware lays it out, here by the
        // access's width: the same word of the 32 lanes is contiguous.
        const uint64_t width = std::max<uint32_t>(4, bytes);
        const uint64_t warp_base = (uint64_t(block_) * nwarps_ + w) * ((k_.local_bytes + 15) / 16 * 16) * 32;
        r.offset = warp_base + (a / width) * 32 * width + uint64_t(lane) * width + a % width;
        return r;
      }
      case Space::Param: {
        r.space = trace::Space::Constant;
        r.buffer = trace::kNoBuffer;  // not recorded
        if (a >= kCallArea) {         // the thread's call area
          const uint64_t off = a - kCallArea;
          if (off + bytes > k_.call_bytes) fault(in, w, lane, "call parameters", int64_t(off), k_.call_bytes);
          r.p = call_.data() + size_t(w * 32 + uint32_t(lane)) * k_.call_bytes + off;
          return r;
        }
        if (a + bytes > a_.params.size()) fault(in, w, lane, "kernel parameters", int64_t(a), a_.params.size());
        r.p = const_cast<uint8_t*>(a_.params.data()) + a;
        r.space = trace::Space::Constant;
        r.buffer = trace::kNoBuffer;  // not recorded
        return r;
      }
      case Space::Const:
        a += kConstWindow;
        [[fallthrough]];
      default: {
        // The array of the previous access first: a warp's lanes mostly share one.
        Device::Alloc* al = last_ && !last_->freed && a >= last_->base && a + bytes <= last_->base + last_->bytes
                                ? last_
                                : (last_ = d_.find(a, bytes));
        if (!al) {
          // Name the array the pointer most likely came from: the one just below it.
          auto it = d_.allocs_.upper_bound(a);
          if (it != d_.allocs_.begin()) {
            --it;
            const Device::Alloc& n = *it->second;
            fault(in, w, lane, demangle_var(n.name), int64_t(a - n.base), n.bytes);
          }
          fault(in, w, lane, "no array", int64_t(a), 0);
        }
        r.p = al->ptr + (a - al->base);
        r.space = al->space;
        r.buffer = d_.buffer_of(*al, b_);
        r.offset = a - al->base;
        return r;
      }
    }
  }

  // The shared array whose range holds window offset `a`: `hint` first (the array an
  // earlier access reached), then each in turn; `hint` becomes the one found.
  // shared_range_.size(): none (the padding between arrays).
  size_t shared_array(uint64_t a, size_t& hint) const {
    auto holds = [&](size_t i) { return a >= shared_range_[i].first && a < shared_range_[i].second; };
    if (hint < shared_range_.size() && holds(hint)) [[likely]] return hint;
    for (size_t i = 0; i < shared_range_.size(); ++i)
      if (holds(i)) return hint = i;
    return shared_range_.size();
  }

  [[gnu::always_inline]] uint32_t shared_buffer(size_t i) {
    if (!shared_buf_.empty()) [[likely]] return shared_buf_[std::min(i, shared_buf_.size() - 1)];
    return make_shared_buffers(i);
  }
  [[gnu::noinline]] uint32_t make_shared_buffers(size_t i) {
    {
      for (const Variable& v : k_.shared) {
        const uint64_t bytes = v.external ? a_.dynamic_shared : v.bytes;
        const uint32_t eb = std::max<uint32_t>(1, v.elem_bytes == 1 ? 4 : v.elem_bytes);
        shared_buf_.push_back(b_.add_shared(demangle_var(v.name), eb, 1, std::max<uint64_t>(1, bytes / eb), bytes));
      }
      shared_buf_.push_back(b_.add_shared("shared memory", 4, 1, std::max<uint64_t>(1, shared_.size() / 4), shared_.size()));
    }
    return shared_buf_[std::min(i, shared_buf_.size() - 1)];
  }
  uint32_t local_buffer() {
    if (local_buf_ == trace::kNoBuffer) {
      trace::Buffer lb;
      lb.name = "local frames";
      lb.space = trace::Space::Local;
      lb.elem_bytes = 4;
      const uint64_t bytes = (k_.local_bytes + 15) / 16 * 16 * 32 * nwarps_ * a_.grid.count();
      lb.cols = std::max<uint64_t>(1, bytes / 4);  // (frames padded to 16 bytes)
      lb.size_bytes = bytes;
      local_buf_ = b_.add_buffer(std::move(lb));
    }
    return local_buf_;
  }

  uint32_t site_of(uint32_t pc, const Insn& in, trace::Space sp, trace::Op op, uint32_t bytes) {
    uint32_t& id = sites_[size_t(pc) * trace::kSpaceCount + size_t(sp)];
    if (id != trace::kNoBuffer) [[likely]] return id;
    trace::Site s;
    s.file = trace_file(in.file);
    s.line = in.line;
    s.column = in.column;
    s.space = sp;
    s.op = op;
    s.bytes = uint8_t(bytes);
    s.instruction = in.opcode;
    s.buffer = trace::kNoBuffer;
    id = b_.add_site(std::move(s));
    return id;
  }
  uint32_t trace_file(uint32_t f) {
    if (f < files_.size() && files_[f] != trace::kNoBuffer) return files_[f];
    return 0;
  }

  // A record's head: where in the launch, which instruction, which lanes, which array.
  trace::WarpAccess warp_access(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec, trace::Space space, trace::Op op,
                                uint32_t bytes, uint32_t buffer) {
    trace::WarpAccess acc;
    acc.block = block_;
    acc.warp = w;
    acc.epoch = epoch_;
    acc.seq = warps_[w].seq++;
    acc.active = exec;
    acc.site = site_of(pc, in, space, op, bytes);
    acc.buffer = buffer;
    return acc;
  }

  // One warp-level memory instruction: the lanes' accesses as one record.
  void record(uint32_t pc, const Insn& in, trace::Op op, uint32_t bytes, uint32_t exec, const Where* where, uint32_t w) {
    int first = std::countr_zero(exec);
    if (where[first].buffer == trace::kNoBuffer) return;  // parameter reads are not memory traffic
    if (where[first].space == trace::Space::Local && !d_.record_local_) return;
    trace::WarpAccess acc = warp_access(pc, in, w, exec, where[first].space, op, bytes, where[first].buffer);
    uint32_t offs[32] = {};
    trace::LaneBuffers lanes{};
    bool mixed = false;
    for (int l = 0; l < 32; ++l) {
      if (!((exec >> l) & 1u)) continue;
      offs[l] = uint32_t(where[l].offset);
      lanes[size_t(l)] = where[l].buffer;
      mixed |= where[l].buffer != acc.buffer;
    }
    acc.offset = offs;
    if (mixed) acc.lanes = &lanes;
    b_.add(acc);
  }

  uint64_t run_warp(uint32_t w) {
    Warp& wp = warps_[w];
    uint64_t lanes_done = 0;
    const std::vector<Insn>& code = k_.code;
    // `known`: every ready lane stands at `pc` (a converged warp after an instruction all of
    // them ran), so the lanes need not be searched and their wp.pc entries, stale, are not
    // read; every instruction that can part them writes all of its lanes' entries.
    bool known = false;
    uint32_t pc = ~0u, active = 0;
    for (;;) {
      const uint32_t ready = wp.live & ~wp.at_bar;
      if (!ready) return lanes_done;
      if (!known) {
        // The lowest program counter among the ready lanes, and the lanes that stand there.
        pc = ~0u;
        active = 0;
        for (uint32_t m = ready; m; m &= m - 1) {
          const int l = std::countr_zero(m);
          const uint32_t p = wp.pc[l];
          if (p < pc) {
            pc = p;
            active = 1u << l;
          } else if (p == pc) {
            active |= 1u << l;
          }
        }
      }
      known = false;
      if (pc >= code.size()) {  // ran off the end: as ret
        wp.live &= ~active;
        continue;
      }
      if (budget_ == 0) {
        const Insn& at = code[pc];
        const trace::Dim3 c = a_.grid;
        throw Fault("kernel " + kernel_name(k_.name) + " did not finish within " + std::to_string(kInstructionBudget) +
                    " warp instructions (an endless loop?): block (" + std::to_string(block_ % c.x) + "," +
                    std::to_string((block_ / c.x) % c.y) + "), warp " + std::to_string(w) + " at line " +
                    std::to_string(at.line));
      }
      --budget_;
      ++clock_;
      const Insn& in = code[pc];
      uint32_t exec = active;
      if (in.guard != kSink) {
        exec = 0;
        for (uint32_t m = active; m; m &= m - 1) {
          const int l = std::countr_zero(m);
          const bool p = reg(w, in.guard, l) & 1;
          if (p != in.guard_neg) exec |= 1u << l;
        }
      }
      uint32_t next_pc = pc + 1;
      auto advance = [&](uint32_t mask, uint32_t to) {
        for (uint32_t m = mask; m; m &= m - 1) wp.pc[std::countr_zero(m)] = to;
      };
      switch (in.op) {
        case Opc::Bra:
          advance(exec, uint32_t(in.o[0].imm));
          advance(active & ~exec, next_pc);
          if (active == ready && (exec == active || exec == 0)) {  // a uniform branch
            known = true;
            pc = exec ? uint32_t(in.o[0].imm) : next_pc;
          }
          continue;
        case Opc::Call:
          for (uint32_t m = exec; m; m &= m - 1) {
            const int l = std::countr_zero(m);
            call(in, w, l, next_pc);
          }
          advance(active & ~exec, next_pc);
          continue;
        case Opc::Ret:
          for (uint32_t m = exec; m; m &= m - 1) {
            const int l = std::countr_zero(m);
            std::vector<Frame>* fr = frames_.empty() ? nullptr : &frames_[w * 32 + uint32_t(l)];
            if (!fr || fr->empty()) {
              wp.live &= ~(1u << l);  // the kernel's own ret
              continue;
            }
            const Frame f = fr->back();
            fr->pop_back();
            uint8_t* area = call_.data() + size_t(w * 32 + uint32_t(l)) * k_.call_bytes;
            for (const Kernel::Copy& c : k_.linked[f.linked].out) std::memmove(area + c.to, area + c.from, c.bytes);
            wp.pc[l] = f.ret_pc;
          }
          advance(active & ~exec, next_pc);
          continue;
        case Opc::Exit:
          wp.live &= ~exec;
          advance(active & ~exec, next_pc);
          continue;
        case Opc::Bar:
          wp.at_bar |= exec;
          advance(active, next_pc);
          continue;
        default: break;
      }
      if (exec) lanes_done += execute(pc, in, w, exec);
      if (active == ready) {
        known = true;
        pc = next_pc;
      } else {
        advance(active, next_pc);
      }
    }
  }

  // A string in device memory at generic address `a` (at most 4096 bytes).
  std::string device_string(const Insn& in, uint64_t a, uint32_t w, int l) {
    std::string s;
    for (; s.size() < 4096; ++a) {
      const char c = char(*resolve(in, Space::Generic, a, 1, w, l).p);
      if (!c) break;
      s += c;
    }
    return s;
  }

  // printf in a kernel: the format and the argument buffer nvcc packed (each argument at
  // its own alignment), formatted as the GPU formats them, written to the program's stdout.
  uint32_t device_printf(const Insn& in, uint64_t fmt_addr, uint64_t args, uint32_t w, int l) {
    const std::string fmt = device_string(in, fmt_addr, w, l);
    std::string out;
    uint64_t at = args;
    auto take = [&](uint32_t bytes) {
      at = (at + bytes - 1) / bytes * bytes;
      uint64_t v = 0;
      std::memcpy(&v, resolve(in, Space::Generic, at, bytes, w, l).p, bytes);
      at += bytes;
      return v;
    };
    for (size_t i = 0; i < fmt.size(); ++i) {
      if (fmt[i] != '%') {
        out += fmt[i];
        continue;
      }
      size_t j = i + 1;
      while (j < fmt.size() && std::strchr("-+ #0123456789.*", fmt[j])) ++j;
      std::string len;
      while (j < fmt.size() && std::strchr("hlLqjzt", fmt[j])) len += fmt[j++];
      if (j >= fmt.size()) break;
      const char conv = fmt[j];
      std::string spec = fmt.substr(i, j - i - len.size());
      char buf[512];
      if (conv == '%') {
        out += '%';
      } else if (std::strchr("diouxXc", conv)) {
        const bool wide = len.find('l') != std::string::npos || len == "j" || len == "z" || len == "t" || len == "q";
        const uint64_t v = take(wide ? 8 : 4);
        const std::string f = spec + "ll" + conv;
        if (conv == 'd' || conv == 'i') std::snprintf(buf, sizeof buf, f.c_str(), wide ? (long long)v : (long long)int32_t(v));
        else if (conv == 'c') std::snprintf(buf, sizeof buf, (spec + conv).c_str(), int(v));
        else std::snprintf(buf, sizeof buf, f.c_str(), wide ? (unsigned long long)v : (unsigned long long)uint32_t(v));
        out += buf;
      } else if (std::strchr("fFeEgGaA", conv)) {
        const uint64_t v = take(8);
        std::snprintf(buf, sizeof buf, (spec + conv).c_str(), std::bit_cast<double>(v));
        out += buf;
      } else if (conv == 's') {
        const uint64_t p = take(8);
        const std::string str = p ? device_string(in, p, w, l) : "(null)";
        std::snprintf(buf, sizeof buf, (spec + 's').c_str(), str.c_str());
        out += buf;
      } else if (conv == 'p') {
        std::snprintf(buf, sizeof buf, "%p", reinterpret_cast<void*>(take(8)));
        out += buf;
      } else {
        out += fmt.substr(i, j - i + 1);
      }
      i = j;
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    return uint32_t(out.size());
  }

  // A builtin call of one lane (printf, assert), done at once.
  void builtin(const Insn& in, const Kernel::Linked& L, uint32_t w, int l) {
    const uint8_t* area = call_.data() + size_t(w * 32 + uint32_t(l)) * k_.call_bytes;
    auto arg = [&](size_t i) {
      uint64_t v = 0;
      if (i < L.in.size()) std::memcpy(&v, area + L.in[i].from, std::min<uint32_t>(8, L.in[i].bytes));
      return v;
    };
    if (L.builtin == Kernel::Builtin::Printf) {
      const uint32_t n = device_printf(in, arg(0), arg(1), w, l);
      std::memcpy(const_cast<uint8_t*>(area) + L.ret_slot, &n, 4);
      return;
    }
    // __assertfail(message, file, line, function, char size)
    const uint32_t t = w * 32 + uint32_t(l);
    const trace::Dim3& b = a_.block;
    const std::string msg = device_string(in, arg(1), w, l) + ":" + std::to_string(uint32_t(arg(2))) + ": " +
                            device_string(in, arg(3), w, l) + ": block [" + std::to_string(ctaid_[0]) + "," +
                            std::to_string(ctaid_[1]) + "," + std::to_string(ctaid_[2]) + "], thread [" +
                            std::to_string(t % b.x) + "," + std::to_string((t / b.x) % b.y) + "," +
                            std::to_string(t / (b.x * b.y)) + "] Assertion `" + device_string(in, arg(0), w, l) +
                            "` failed.";
    throw Fault(msg, true);
  }

  // One lane enters a device function: its arguments copied in, where to return kept.
  void call(const Insn& in, uint32_t w, int l, uint32_t ret_pc) {
    const uint32_t li = uint32_t(in.o[0].imm);
    const Kernel::Linked& L = k_.linked[li];
    if (L.builtin != Kernel::Builtin::None) {
      builtin(in, L, w, l);
      warps_[w].pc[l] = ret_pc;
      return;
    }
    std::vector<Frame>& fr = frames_[w * 32 + uint32_t(l)];
    for (const Frame& f : fr)
      if (k_.linked[f.linked].function == L.function)
        throw Fault("recursion (a device function calling itself) is not supported by the emulated device, in " +
                    kernel_name(k_.name));
    if (fr.size() >= 64) throw Fault("device function calls nested more than 64 deep in " + kernel_name(k_.name));
    uint8_t* area = call_.data() + size_t(w * 32 + uint32_t(l)) * k_.call_bytes;
    for (const Kernel::Copy& c : L.in) std::memmove(area + c.to, area + c.from, c.bytes);
    fr.push_back({ret_pc, li});
    warps_[w].pc[l] = L.entry;
  }

  // Executes a non-branch instruction for the lanes of `exec`; returns lane accesses.
  uint64_t execute(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
    const Type t = in.type;
    auto each = [&](auto&& f) {
      for (uint32_t m = exec; m; m &= m - 1) f(std::countr_zero(m));
    };
    const Operand &d = in.o[0], &A = in.o[1], &B = in.o[2], &C = in.o[3];
    const uint64_t mask = width_mask(t);
    switch (in.op) {
      case Opc::Nop:
      case Opc::Membar:
        return 0;
      case Opc::Mov:
        each([&](int l) {
          if (d.kind == Operand::Vec) {  // unpack
            const uint64_t v = val(A, w, l);
            const uint32_t eb = type_bytes(t) / d.count;
            for (int i = 0; i < d.count; ++i)
              if (d.vec[size_t(i)] != kSink)
                reg(w, d.vec[size_t(i)], l) = (v >> (8 * eb * uint32_t(i))) & ((eb >= 8) ? ~0ull : (1ull << (8 * eb)) - 1);
          } else if (A.kind == Operand::Vec) {  // pack
            const uint32_t eb = type_bytes(t) / A.count;
            uint64_t v = 0;
            for (int i = 0; i < A.count; ++i) {
              const uint64_t e = A.vec[size_t(i)] == kSink ? 0 : reg(w, A.vec[size_t(i)], l);
              v |= (e & ((eb >= 8) ? ~0ull : (1ull << (8 * eb)) - 1)) << (8 * eb * uint32_t(i));
            }
            set(d, w, l, v);
          } else {
            set(d, w, l, t == Type::Pred ? (val(A, w, l) & 1) : val(A, w, l) & mask);
          }
        });
        return 0;
      case Opc::Cvta:
      case Opc::CvtaTo: {
        const uint64_t win = in.space == Space::Shared ? kSharedWindow : in.space == Space::Local ? kLocalWindow
                           : in.space == Space::Const ? kConstWindow : in.space == Space::Param ? kParamWindow : 0;
        each([&](int l) {
          const uint64_t v = val(A, w, l);
          set(d, w, l, (in.op == Opc::Cvta ? v + win : v - win) & mask);
        });
        return 0;
      }
      case Opc::Ld:
      case Opc::St:
      case Opc::Atom:
      case Opc::Red:
        return memory(pc, in, w, exec);
      case Opc::Shfl: {
        uint64_t src[32] = {};
        for (int l = 0; l < 32; ++l) src[l] = (exec >> l) & 1u ? val(A, w, l) : 0;
        each([&](int l) {
          const uint32_t b = uint32_t(val(B, w, l)) & 31, c = uint32_t(val(C, w, l));
          const uint32_t cval = c & 31, segmask = (c >> 8) & 31;
          const uint32_t maxl = (uint32_t(l) & segmask) | (cval & ~segmask), minl = uint32_t(l) & segmask;
          int64_t j = l;
          bool ok = false;
          switch (ShflMode(in.sub)) {
            case ShflMode::Up: j = l - int64_t(b); ok = j >= int64_t(maxl); break;
            case ShflMode::Down: j = l + int64_t(b); ok = j <= int64_t(maxl); break;
            case ShflMode::Bfly: j = l ^ int64_t(b); ok = j <= int64_t(maxl); break;
            case ShflMode::Idx: j = int64_t(minl | (b & ~segmask)); ok = j <= int64_t(maxl); break;
          }
          if (!ok) j = l;
          set(d, w, l, src[j & 31] & 0xffffffffull);
        });
        return 0;
      }
      case Opc::Vote: {
        uint32_t ballot = 0;
        each([&](int l) {
          if (pred(A, w, l)) ballot |= 1u << l;
        });
        each([&](int l) {
          switch (VoteMode(in.sub)) {
            case VoteMode::Ballot: set(d, w, l, ballot); break;
            case VoteMode::All: set(d, w, l, ballot == exec); break;
            case VoteMode::Any: set(d, w, l, ballot != 0); break;
            case VoteMode::Uni: set(d, w, l, ballot == exec || ballot == 0); break;
          }
        });
        return 0;
      }
      case Opc::Activemask:
        each([&](int l) { set(d, w, l, exec); });
        return 0;
      default: break;
    }
    if (fast_alu(in, w, exec)) return 0;
    each([&](int l) { alu(in, w, l, t, mask); });
    return 0;
  }

  // The 32 lanes' values of an operand: a register's own (a register's lanes lie side by
  // side), else `tmp` filled for the lanes of `exec`.
  [[gnu::always_inline]] const uint64_t* lanes_of(const Operand& o, uint32_t w, uint32_t exec, uint64_t* tmp) {
    if (o.kind == Operand::Reg) return &reg(w, o.reg, 0);
    if (o.kind == Operand::Imm) {
      std::fill_n(tmp, 32, uint64_t(o.imm));
      return tmp;
    }
    for (uint32_t m = exec; m; m &= m - 1) tmp[std::countr_zero(m)] = val(o, w, std::countr_zero(m));
    return tmp;
  }

  // The instructions a kernel runs most (address arithmetic, compares, float multiply-adds)
  // with the operation chosen once for the warp instead of once per lane: the same results
  // as alu(). False: not one of them, alu() does it.
  bool fast_alu(const Insn& in, uint32_t w, uint32_t exec) {
    const Operand& d = in.o[0];
    const Type t = in.type;
    if (d.kind != Operand::Reg || t == Type::F16 || t == Type::F64) return false;
    uint64_t ta[32], tb[32], tc[32];
    uint64_t* D = &reg(w, d.reg, 0);
    const uint64_t mask = width_mask(t);
    const bool fl = t == Type::F32;
    auto lanes = [&](auto f) {
      if (exec == ~0u) {
        for (int l = 0; l < 32; ++l) f(l);
      } else {
        for (uint32_t m = exec; m; m &= m - 1) f(std::countr_zero(m));
      }
    };
    switch (in.op) {
      case Opc::Mov:
        if (in.o[1].kind == Operand::Vec || t == Type::Pred) return false;
        {
          const uint64_t* A = lanes_of(in.o[1], w, exec, ta);
          lanes([&](int l) { D[l] = A[l] & mask; });
        }
        return true;
      case Opc::Add:
      case Opc::Sub:
      case Opc::Mul:
      case Opc::And:
      case Opc::Or:
      case Opc::Xor:
      case Opc::Shl: {
        if (in.mods & (kHi | kSat) || (in.mods & kWide && in.op != Opc::Mul)) return false;
        const uint64_t* A = lanes_of(in.o[1], w, exec, ta);
        const uint64_t* B = lanes_of(in.o[2], w, exec, tb);
        if (fl) {
          switch (in.op) {
            case Opc::Add: lanes([&](int l) { D[l] = bits(f32(A[l]) + f32(B[l])); }); return true;
            case Opc::Sub: lanes([&](int l) { D[l] = bits(f32(A[l]) - f32(B[l])); }); return true;
            case Opc::Mul: lanes([&](int l) { D[l] = bits(f32(A[l]) * f32(B[l])); }); return true;
            default: return false;
          }
        }
        switch (in.op) {
          case Opc::Add: lanes([&](int l) { D[l] = (A[l] + B[l]) & mask; }); return true;
          case Opc::Sub: lanes([&](int l) { D[l] = (A[l] - B[l]) & mask; }); return true;
          case Opc::Mul:
            if (in.mods & kWide) {
              if (is_signed(t)) lanes([&](int l) { D[l] = uint64_t(sext(t, A[l]) * sext(t, B[l])); });
              else lanes([&](int l) { D[l] = (A[l] & mask) * (B[l] & mask); });
            } else {
              lanes([&](int l) { D[l] = (A[l] * B[l]) & mask; });
            }
            return true;
          case Opc::And: lanes([&](int l) { D[l] = A[l] & B[l] & mask; }); return true;
          case Opc::Or: lanes([&](int l) { D[l] = (A[l] | B[l]) & mask; }); return true;
          case Opc::Xor: lanes([&](int l) { D[l] = (A[l] ^ B[l]) & mask; }); return true;
          case Opc::Shl: {
            const uint64_t bw = 8 * type_bytes(t);
            lanes([&](int l) {
              const uint64_t sh = B[l] & 0xffffffff;
              D[l] = sh >= bw ? 0 : (A[l] << sh) & mask;
            });
            return true;
          }
          default: return false;
        }
      }
      case Opc::Fma:
      case Opc::Mad: {
        if (in.mods & (kHi | kSat)) return false;
        const uint64_t* A = lanes_of(in.o[1], w, exec, ta);
        const uint64_t* B = lanes_of(in.o[2], w, exec, tb);
        const uint64_t* C = lanes_of(in.o[3], w, exec, tc);
        if (fl) {
          lanes([&](int l) { D[l] = bits(std::fma(f32(A[l]), f32(B[l]), f32(C[l]))); });
        } else if (in.op == Opc::Fma) {
          return false;
        } else if (in.mods & kWide) {
          if (is_signed(t)) lanes([&](int l) { D[l] = uint64_t(sext(t, A[l]) * sext(t, B[l])) + C[l]; });
          else lanes([&](int l) { D[l] = (A[l] & mask) * (B[l] & mask) + C[l]; });
        } else {
          lanes([&](int l) { D[l] = (A[l] * B[l] + C[l]) & mask; });
        }
        return true;
      }
      case Opc::Setp: {
        if (in.mods & (kCmpAnd | kCmpOr | kCmpXor)) return false;
        const uint64_t* A = lanes_of(in.o[1], w, exec, ta);
        const uint64_t* B = lanes_of(in.o[2], w, exec, tb);
        const Cmp c = in.cmp;
        if (t == Type::S32) {  // loop bounds and guards: the comparison chosen once
          auto s32 = [&](auto op) { lanes([&](int l) { D[l] = op(int32_t(A[l]), int32_t(B[l])); }); };
          switch (c) {
            case Cmp::Lt: s32(std::less<>{}); return true;
            case Cmp::Le: s32(std::less_equal<>{}); return true;
            case Cmp::Gt: s32(std::greater<>{}); return true;
            case Cmp::Ge: s32(std::greater_equal<>{}); return true;
            case Cmp::Eq: s32(std::equal_to<>{}); return true;
            case Cmp::Ne: s32(std::not_equal_to<>{}); return true;
            default: break;
          }
        }
        lanes([&](int l) { D[l] = compare(c, t, A[l], B[l]); });
        return true;
      }
      case Opc::Selp: {
        const Operand& C = in.o[3];
        if (C.kind != Operand::Reg) return false;
        const uint64_t* A = lanes_of(in.o[1], w, exec, ta);
        const uint64_t* B = lanes_of(in.o[2], w, exec, tb);
        const uint64_t* P = &reg(w, C.reg, 0);
        const bool neg = C.negate;
        lanes([&](int l) { D[l] = (bool(P[l] & 1) != neg) ? A[l] : B[l]; });
        return true;
      }
      default:
        return false;
    }
  }

  void alu(const Insn& in, uint32_t w, int l, Type t, uint64_t mask) {
    const Operand &d = in.o[0], &A = in.o[1], &B = in.o[2], &C = in.o[3];
    const bool fl = is_float(t);
    if (t == Type::F16) throw Fault("half-precision instruction '" + in.opcode + "' is not supported yet");
    auto fop = [&](auto f) {
      if (t == Type::F64) set(d, w, l, bits(double(f(f64(val(A, w, l)), f64(val(B, w, l)), f64(val(C, w, l))))));
      else set(d, w, l, bits(float(f(f32(val(A, w, l)), f32(val(B, w, l)), f32(val(C, w, l))))));
    };
    const uint64_t a = val(A, w, l), b = in.nops > 2 ? val(B, w, l) : 0;
    const int64_t sa = sext(t, a), sb = sext(t, b);
    const uint64_t ua = a & mask, ub = b & mask;
    switch (in.op) {
      case Opc::Add:
        if (fl) fop([](auto x, auto y, auto) { return x + y; });
        else set(d, w, l, (a + b) & mask);
        return;
      case Opc::Sub:
        if (fl) fop([](auto x, auto y, auto) { return x - y; });
        else set(d, w, l, (a - b) & mask);
        return;
      case Opc::Mul:
      case Opc::Mad: {
        const uint64_t c = in.op == Opc::Mad ? val(C, w, l) : 0;
        if (fl) {
          if (in.op == Opc::Mad) fop([](auto x, auto y, auto z) { return std::fma(x, y, z); });
          else fop([](auto x, auto y, auto) { return x * y; });
          return;
        }
        const uint32_t bitsw = 8 * type_bytes(t);
        if (in.mods & kWide) {
          const uint64_t p = is_signed(t) ? uint64_t(sa * sb) : ua * ub;
          set(d, w, l, p + c);
        } else if (in.mods & kHi) {
          uint64_t hi;
          if (bitsw == 64) {
            hi = is_signed(t) ? uint64_t((__int128(sa) * __int128(sb)) >> 64)
                              : uint64_t((unsigned __int128)(ua) * (unsigned __int128)(ub) >> 64);
          } else {
            hi = is_signed(t) ? uint64_t((sa * sb) >> bitsw) : (ua * ub) >> bitsw;
          }
          set(d, w, l, (hi + c) & mask);
        } else {
          set(d, w, l, (a * b + c) & mask);
        }
        return;
      }
      case Opc::Mul24:
      case Opc::Mad24: {
        const uint64_t c = in.op == Opc::Mad24 ? val(C, w, l) : 0;
        const int64_t x = is_signed(t) ? (int64_t(a << 40) >> 40) : int64_t(a & 0xffffff);
        const int64_t y = is_signed(t) ? (int64_t(b << 40) >> 40) : int64_t(b & 0xffffff);
        const uint64_t p = uint64_t(x * y);
        set(d, w, l, (((in.mods & kHi) ? p >> 16 : p) + c) & mask);
        return;
      }
      case Opc::Fma:
        fop([](auto x, auto y, auto z) { return std::fma(x, y, z); });
        return;
      case Opc::Div:
        if (fl) { fop([](auto x, auto y, auto) { return x / y; }); return; }
        if (ub == 0) { set(d, w, l, mask); return; }  // the GPU returns all ones; never traps
        set(d, w, l, (is_signed(t) ? uint64_t(sb == -1 ? -sa : sa / sb) : ua / ub) & mask);
        return;
      case Opc::Rem:
        if (ub == 0) { set(d, w, l, ua); return; }
        set(d, w, l, (is_signed(t) ? uint64_t(sb == -1 ? 0 : sa % sb) : ua % ub) & mask);
        return;
      case Opc::Min:
      case Opc::Max: {
        const bool mn = in.op == Opc::Min;
        if (fl) { fop([&](auto x, auto y, auto) { return mn ? std::fmin(x, y) : std::fmax(x, y); }); return; }
        if (is_signed(t)) set(d, w, l, uint64_t(mn ? std::min(sa, sb) : std::max(sa, sb)) & mask);
        else set(d, w, l, mn ? std::min(ua, ub) : std::max(ua, ub));
        return;
      }
      case Opc::Neg:
        if (fl) fop([](auto x, auto, auto) { return -x; });
        else set(d, w, l, uint64_t(-sa) & mask);
        return;
      case Opc::Abs:
        if (fl) fop([](auto x, auto, auto) { return std::fabs(x); });
        else set(d, w, l, uint64_t(sa < 0 ? -sa : sa) & mask);
        return;
      case Opc::And: set(d, w, l, (a & b) & mask); return;
      case Opc::Or: set(d, w, l, (a | b) & mask); return;
      case Opc::Xor: set(d, w, l, (a ^ b) & mask); return;
      case Opc::Not: set(d, w, l, t == Type::Pred ? (~a & 1) : (~a & mask)); return;
      case Opc::Shl: {
        const uint64_t s = b & 0xffffffff;
        set(d, w, l, s >= 8 * type_bytes(t) ? 0 : (a << s) & mask);
        return;
      }
      case Opc::Shr: {
        const uint32_t bw = 8 * type_bytes(t);
        const uint64_t s = std::min<uint64_t>(b & 0xffffffff, bw);
        if (is_signed(t)) set(d, w, l, uint64_t(sa >> std::min<uint64_t>(s, 63)) & mask);
        else set(d, w, l, s >= bw ? 0 : (ua >> s));
        return;
      }
      case Opc::Setp:
      case Opc::Set: {
        bool r = compare(in.cmp, t, a, b);
        if (in.mods & (kCmpAnd | kCmpOr | kCmpXor)) {
          const bool c = pred(C, w, l);
          r = (in.mods & kCmpAnd) ? (r && c) : (in.mods & kCmpOr) ? (r || c) : (r != c);
        }
        if (in.op == Opc::Setp) set(d, w, l, r);
        else set(d, w, l, in.type2 == Type::F32 ? (r ? bits(1.0f) : 0) : (r ? 0xffffffffull : 0));
        return;
      }
      case Opc::Selp:
        set(d, w, l, pred(C, w, l) ? a : b);
        return;
      case Opc::Cvt: {
        const Type src = in.type2;
        if (src == Type::F16 || t == Type::F16) throw Fault("half-precision conversion '" + in.opcode + "' is not supported yet");
        uint64_t r;
        if (is_float(t) && is_float(src)) {
          double x = as_double(src, a);
          if (in.mods & kRzi) x = round_by(in.rnd, x);
          r = from_double(t, x);
        } else if (is_float(t)) {
          const double x = is_signed(src) ? double(sext(src, a)) : double(a & width_mask(src));
          r = from_double(t, x);
        } else if (is_float(src)) {
          r = float_to_int(t, as_double(src, a), in.rnd == Rnd::None ? Rnd::Rzi : in.rnd);
        } else {
          r = (is_signed(src) ? uint64_t(sext(src, a)) : (a & width_mask(src))) & mask;
        }
        set(d, w, l, r);
        return;
      }
      case Opc::Rcp: fop([](auto x, auto, auto) { return decltype(x)(1) / x; }); return;
      case Opc::Sqrt: fop([](auto x, auto, auto) { return std::sqrt(x); }); return;
      case Opc::Rsqrt: fop([](auto x, auto, auto) { return decltype(x)(1) / std::sqrt(x); }); return;
      case Opc::Ex2: fop([](auto x, auto, auto) { return std::exp2(x); }); return;
      case Opc::Lg2: fop([](auto x, auto, auto) { return std::log2(x); }); return;
      case Opc::Sin: fop([](auto x, auto, auto) { return std::sin(x); }); return;
      case Opc::Cos: fop([](auto x, auto, auto) { return std::cos(x); }); return;
      case Opc::Copysign: fop([](auto x, auto y, auto) { return std::copysign(y, x); }); return;
      case Opc::Bfe: {
        const uint32_t bw = 8 * type_bytes(t);
        const uint32_t pos = uint32_t(b & 0xff), len = uint32_t(val(C, w, l) & 0xff);
        uint64_t r = 0;
        for (uint32_t i = 0; i < bw; ++i) {
          uint64_t bit;
          if (i < len && pos + i < bw) bit = (a >> (pos + i)) & 1;
          else if (is_signed(t)) bit = len == 0 ? 0 : (a >> std::min(pos + len - 1, bw - 1)) & 1;
          else bit = 0;
          r |= bit << i;
        }
        set(d, w, l, r & mask);
        return;
      }
      case Opc::Bfi: {
        // bfi d, f, b, pos, len: f's low bits inserted into b.
        const uint64_t f = a, base = b;
        const uint32_t pos = uint32_t(val(C, w, l) & 0xff), len = uint32_t(val(in.o[4], w, l) & 0xff);
        const uint32_t bw = 8 * type_bytes(t);
        uint64_t r = base;
        for (uint32_t i = 0; i < len && pos + i < bw; ++i) r = (r & ~(1ull << (pos + i))) | (((f >> i) & 1) << (pos + i));
        set(d, w, l, r & mask);
        return;
      }
      case Opc::Popc: set(d, w, l, uint64_t(std::popcount(ua))); return;
      case Opc::Clz: {
        const uint32_t bw = 8 * type_bytes(t);
        set(d, w, l, uint64_t(std::countl_zero(ua) - (64 - int(bw))));
        return;
      }
      case Opc::Brev: {
        const uint32_t bw = 8 * type_bytes(t);
        uint64_t r = 0;
        for (uint32_t i = 0; i < bw; ++i) r |= ((ua >> i) & 1) << (bw - 1 - i);
        set(d, w, l, r);
        return;
      }
      case Opc::Prmt: {
        const uint64_t bytes8 = (a & 0xffffffff) | ((b & 0xffffffff) << 32);
        const uint32_t sel = uint32_t(val(C, w, l));
        uint32_t r = 0;
        for (int i = 0; i < 4; ++i) {
          const uint32_t s = (sel >> (4 * i)) & 0xf;
          uint32_t byte = uint32_t(bytes8 >> (8 * (s & 7))) & 0xff;
          if (s & 8) byte = (byte & 0x80) ? 0xff : 0;
          r |= byte << (8 * i);
        }
        set(d, w, l, r);
        return;
      }
      case Opc::Sad: {
        const uint64_t c = val(C, w, l);
        const uint64_t diff = is_signed(t) ? uint64_t(sa > sb ? sa - sb : sb - sa) : (ua > ub ? ua - ub : ub - ua);
        set(d, w, l, (diff + c) & mask);
        return;
      }
      case Opc::Testp: {
        const double x = as_double(t, a);
        set(d, w, l, std::isfinite(x) ? 1 : 0);
        return;
      }
      default:
        throw Fault("instruction '" + in.opcode + "' is not supported yet");
    }
  }

  // A load or store of the shared or global space whose lanes all reach one array (the
  // common case), done without the general path's per-lane bookkeeping. False: not such an
  // access; nothing was changed, memory() does it.
  bool memory_one_array(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
    const bool is_ld = in.op == Opc::Ld;
    const Operand& ao = is_ld ? in.o[1] : in.o[0];
    const uint32_t eb = type_bytes(in.type);
    const uint32_t bytes = eb * in.vec;
    uint32_t offs[32];
    uint8_t* ptr[32];
    uint32_t buffer;
    trace::Space space;
    const int first = std::countr_zero(exec);
    if (in.space == Space::Shared) {
      // The array this instruction reached last time, else the first lane's.
      size_t& h = pc_shared_[pc];
      if (shared_array(addr(ao, w, first), h) == shared_range_.size()) return false;
      const auto [lo, hi] = shared_range_[h];
      for (uint32_t m = exec; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        const uint64_t a = addr(ao, w, l);
        if (a < lo || a + bytes > hi) return false;
        offs[l] = uint32_t(a - lo);
        ptr[l] = shared_.data() + a;
      }
      buffer = shared_buffer(h);
      space = trace::Space::Shared;
    } else {
      Device::Alloc*& al = pc_alloc_[pc];
      const uint64_t a0 = addr(ao, w, first);
      if (!al || al->freed || a0 < al->base || a0 + bytes > al->base + al->bytes) al = d_.find(a0, bytes);
      if (!al || al->space != trace::Space::Global) return false;
      const uint64_t lo = al->base, hi = al->base + al->bytes;
      for (uint32_t m = exec; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        const uint64_t a = addr(ao, w, l);
        if (a < lo || a + bytes > hi) return false;
        offs[l] = uint32_t(a - lo);
        ptr[l] = al->ptr + (a - lo);
      }
      buffer = d_.buffer_of(*al, b_);
      space = trace::Space::Global;
    }
    // Element by element (a vector's registers in turn), each with its own width's copy.
    auto each_elem = [&](auto&& f) {
      switch (eb) {
        case 1: f(uint8_t{}); break;
        case 2: f(uint16_t{}); break;
        case 4: f(uint32_t{}); break;
        default: f(uint64_t{}); break;
      }
    };
    if (is_ld) {
      const Operand& d = in.o[0];
      const bool sx = is_signed(in.type);
      each_elem([&](auto e) {
        using E = decltype(e);
        for (uint32_t i = 0; i < in.vec; ++i) {
          const uint32_t r = d.kind == Operand::Vec ? d.vec[i] : d.reg;
          if (r == kSink) continue;
          uint64_t* R = &reg(w, r, 0);
          for (uint32_t m = exec; m; m &= m - 1) {
            const int l = std::countr_zero(m);
            E v;
            std::memcpy(&v, ptr[l] + i * sizeof(E), sizeof(E));
            R[l] = sx ? uint64_t(sext(in.type, v)) : uint64_t(v);
          }
        }
      });
    } else {
      const Operand& sv = in.o[1];
      each_elem([&](auto e) {
        using E = decltype(e);
        for (uint32_t i = 0; i < in.vec; ++i) {
          const bool sink = sv.kind == Operand::Vec && sv.vec[i] == kSink;
          for (uint32_t m = exec; m; m &= m - 1) {
            const int l = std::countr_zero(m);
            const E v = sink ? 0 : E(sv.kind == Operand::Vec ? reg(w, sv.vec[i], l) : val(sv, w, l));
            std::memcpy(ptr[l] + i * sizeof(E), &v, sizeof(E));
          }
        }
      });
    }
    if (exec != ~0u)
      for (uint32_t m = ~exec; m; m &= m - 1) offs[std::countr_zero(m)] = 0;
    trace::WarpAccess acc = warp_access(pc, in, w, exec, space, is_ld ? trace::Op::Load : trace::Op::Store, bytes, buffer);
    acc.offset = offs;
    b_.add(acc);
    return true;
  }

  uint64_t memory(uint32_t pc, const Insn& in, uint32_t w, uint32_t exec) {
    const bool is_ld = in.op == Opc::Ld, is_st = in.op == Opc::St;
    if ((is_ld || is_st) && (in.space == Space::Shared || in.space == Space::Global) && memory_one_array(pc, in, w, exec))
      return uint64_t(std::popcount(exec));
    if (is_ld && in.space == Space::Param && !in.o[1].has_reg && in.o[0].kind == Operand::Reg && in.vec == 1) {
      // A kernel parameter: one value for every lane, not memory traffic.
      const uint64_t at = addr(in.o[1], w, 0);
      const uint32_t eb = type_bytes(in.type);
      if (at + eb <= a_.params.size()) {
        uint64_t v = 0;
        std::memcpy(&v, a_.params.data() + at, eb);
        if (is_signed(in.type)) v = uint64_t(sext(in.type, v));
        uint64_t* R = &reg(w, in.o[0].reg, 0);
        for (uint32_t m = exec; m; m &= m - 1) R[std::countr_zero(m)] = v;
        return 0;
      }
    }
    const Operand& ao = is_ld || in.op == Opc::Atom ? in.o[1] : in.o[0];
    const uint32_t eb = type_bytes(in.type);
    const uint32_t bytes = eb * in.vec;
    Where where[32];
    for (uint32_t m = exec; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      where[l] = resolve(in, in.space, addr(ao, w, l), bytes, w, l);
    }
    const trace::Op op = is_ld ? trace::Op::Load : is_st ? trace::Op::Store : trace::Op::Atomic;
    // Loads read before stores write: the warp's lanes act at once.
    if (is_ld) {
      const Operand& d = in.o[0];
      for (uint32_t m = exec; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        for (uint32_t i = 0; i < in.vec; ++i) {
          uint64_t v = 0;
          std::memcpy(&v, where[l].p + i * eb, eb);
          if (is_signed(in.type)) v = uint64_t(sext(in.type, v));
          const uint32_t r = d.kind == Operand::Vec ? d.vec[i] : d.reg;
          if (r != kSink) reg(w, r, l) = v;
        }
      }
    } else if (is_st) {
      const Operand& s = in.o[1];
      for (uint32_t m = exec; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        for (uint32_t i = 0; i < in.vec; ++i) {
          const uint64_t v = s.kind == Operand::Vec ? (s.vec[i] == kSink ? 0 : reg(w, s.vec[i], l)) : val(s, w, l);
          std::memcpy(where[l].p + i * eb, &v, eb);
        }
      }
    } else {
      atomics(in, w, exec, where);
    }
    record(pc, in, op, bytes, exec, where, w);
    return in.space == Space::Param ? 0 : uint64_t(std::popcount(exec));
  }

  void atomics(const Insn& in, uint32_t w, uint32_t exec, const Where* where) {
    const Type t = in.type;
    const bool red = in.op == Opc::Red;
    const Operand& d = in.o[0];
    const Operand& bo = red ? in.o[1] : in.o[2];
    const Operand& co = in.o[3];
    const uint32_t eb = type_bytes(t);
    const uint64_t mask = width_mask(t);
    for (uint32_t m = exec; m; m &= m - 1) {  // lane order: one at a time, as the hardware serialises them
      const int l = std::countr_zero(m);
      uint64_t old = 0;
      std::memcpy(&old, where[l].p, eb);
      const uint64_t b = val(bo, w, l);
      uint64_t nv = old;
      switch (AtomOp(in.sub)) {
        case AtomOp::Add:
          if (t == Type::F32) nv = bits(f32(old) + f32(b));
          else if (t == Type::F64) nv = bits(f64(old) + f64(b));
          else nv = (old + b) & mask;
          break;
        case AtomOp::Min:
          if (is_float(t)) nv = from_double(t, std::fmin(as_double(t, old), as_double(t, b)));
          else nv = is_signed(t) ? uint64_t(std::min(sext(t, old), sext(t, b))) & mask : std::min(old & mask, b & mask);
          break;
        case AtomOp::Max:
          if (is_float(t)) nv = from_double(t, std::fmax(as_double(t, old), as_double(t, b)));
          else nv = is_signed(t) ? uint64_t(std::max(sext(t, old), sext(t, b))) & mask : std::max(old & mask, b & mask);
          break;
        case AtomOp::Exch: nv = b; break;
        case AtomOp::Cas: nv = (old & mask) == (b & mask) ? val(co, w, l) : old; break;
        case AtomOp::And: nv = old & b; break;
        case AtomOp::Or: nv = old | b; break;
        case AtomOp::Xor: nv = old ^ b; break;
        case AtomOp::Inc: nv = (old & mask) >= (b & mask) ? 0 : old + 1; break;
        case AtomOp::Dec: nv = ((old & mask) == 0 || (old & mask) > (b & mask)) ? b : old - 1; break;
      }
      std::memcpy(where[l].p, &nv, eb);
      if (!red) set(d, w, l, old & mask);
    }
  }

  Device& d_;
  const Kernel& k_;
  const KernelLaunch& a_;
  trace::Builder& b_;
  std::vector<uint32_t> shared_buf_;             // the trace's buffer of each shared array (made on first use)
  uint32_t local_buf_ = trace::kNoBuffer;
  std::vector<uint32_t> sites_;                  // per instruction and space: its trace site
  std::vector<std::pair<uint64_t, uint64_t>> shared_range_;  // per shared array: [begin, end) in the window
  size_t shared_hint_ = 0;
  std::vector<size_t> pc_shared_;                // per instruction: the shared array it reached last
  std::vector<Device::Alloc*> pc_alloc_;         // per instruction: the allocation it reached last
  std::vector<uint32_t>& files_;
  uint64_t& budget_;
  uint32_t threads_ = 0, nwarps_ = 0, block_ = 0, epoch_ = 0;
  uint32_t ctaid_[3] = {};
  uint64_t clock_ = 0;
  Device::Alloc* last_ = nullptr;
  std::vector<uint8_t> shared_, local_, call_;
  struct Frame {
    uint32_t ret_pc, linked;
  };
  std::vector<std::vector<Frame>> frames_;  // per thread: the calls it is inside
  std::vector<uint64_t> regs_;
  std::vector<Warp> warps_;
};

uint64_t Device::launch(const KernelLaunch& a, trace::Builder& b, uint64_t budget) {
  const Kernel* k = module_.kernel(a.kernel);
  if (!k) throw Fault("no kernel named " + a.kernel + " in the program's PTX");
  if (a.block.count() == 0 || a.block.count() > 1024)
    throw Fault("invalid block of " + std::to_string(a.block.count()) + " threads for " + a.kernel + " (1 to 1024)");
  if (a.grid.count() == 0) throw Fault("empty grid for " + a.kernel);
  if (a.params.size() < k->param_bytes)
    throw Fault("kernel " + a.kernel + " expects " + std::to_string(k->param_bytes) + " bytes of parameters");
  if (buffers_for_ != &b.trace()) {  // a new trace: every array is added again on use
    for (auto& [base, x] : allocs_) x->buffer = trace::kNoBuffer;
    buffers_for_ = &b.trace();
  }

  trace::Launch l;
  l.kernel = kernel_name(a.kernel);
  l.grid = a.grid;
  l.block = a.block;
  l.dynamic_shared_bytes = a.dynamic_shared;
  b.begin_launch(std::move(l));

  // The trace's files: the module's .file entries, added once per trace.
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

  uint64_t lanes = 0;
  const size_t first_record = t.records.size();
  const auto t0 = std::chrono::steady_clock::now();
  BlockRun run(*this, *k, a, b, files, budget);
  for (uint32_t blk = 0; blk < a.grid.count(); ++blk) {
    lanes += run.run(blk);
    b.block_done(blk);
    if (blk == 0) b.expect((t.records.size() - first_record) * (a.grid.count() - 1));  // blocks mostly alike
  }
  b.launch().lane_accesses = lanes;
  b.launch().seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // A site is an instruction of this launch (sites are added per launch): its buffer is the
  // one array its records reach, if one.
  std::unordered_map<uint32_t, uint32_t> site_buf;
  for (size_t i = first_record; i < t.records.size(); ++i) {
    const trace::Record& r = t.records[i];
    const uint32_t buf = r.lanes ? trace::kNoBuffer : r.buffer;
    auto [it, fresh] = site_buf.emplace(r.site, buf);
    if (!fresh && it->second != buf) it->second = trace::kNoBuffer;
  }
  for (auto [s, buf] : site_buf) t.sites[s].buffer = buf;
  return lanes;
}

}  // namespace ws::ptx
