// src/emu/context.h — the CPU execution context of a kernel. Array accesses go through
// small wrappers that perform the access on host memory and append (site key, byte
// offset) to the running thread's log; the machine turns the 32 logs of a warp into
// warp-level records at each barrier.
#pragma once
#include <cstdint>
#include <type_traits>

#include "contract.h"
#include "trace/site_key.h"

namespace ws::emu {

// The running thread's access log: (key << 32 | offset) per lane-level access.
struct LaneLog {
  uint64_t* data = nullptr;
  uint64_t* end = nullptr;
  uint64_t* cap = nullptr;
  void grow();
  __attribute__((always_inline)) void push(uint32_t key, uint32_t off) {
    if (end == cap) grow();
    *end++ = (uint64_t(key) << 32) | off;
  }
};

extern constinit thread_local LaneLog* current_log;

[[noreturn]] void out_of_bounds(uint32_t line, uint32_t buffer, int64_t offset, uint64_t size);
void barrier();
// Storage of the calling block's next static shared array; registers it on first use.
struct SharedSlot {
  char* ptr;
  uint32_t buffer;
  uint64_t size;
};
SharedSlot shared_slot(const char* name, uint64_t bytes, uint32_t elem_bytes, uint64_t rows,
                       uint64_t cols);
SharedSlot dynamic_shared_slot(const char* name, uint32_t elem_bytes);

// An index that remembers the source line of the expression that produced it.
struct Idx {
  int64_t i;
  uint32_t line;
  Idx(int64_t v, uint32_t l = __builtin_LINE()) : i(v), line(l) {}
};

// The wrappers below run once per lane-level access: keep them inlined into the kernel.
#define WS_EMU_INLINE __attribute__((always_inline)) inline

template <class T>
class Ref {
 public:
  using V = std::remove_const_t<T>;
  Ref(T* p, uint32_t key, uint32_t off) : p_(p), key_(key), off_(off) {}
  WS_EMU_INLINE operator V() const {
    current_log->push(key_, off_);
    return *p_;
  }
  WS_EMU_INLINE Ref& operator=(const V& v) {
    current_log->push(trace::store_key(key_), off_);
    *p_ = v;
    return *this;
  }
  Ref& operator=(const Ref& r) { return *this = V(r); }
  template <class U>
  Ref& operator=(const Ref<U>& r) {
    return *this = V(r);
  }
  Ref& operator+=(const V& v) { return *this = V(*this) + v; }
  Ref& operator-=(const V& v) { return *this = V(*this) - v; }
  Ref& operator*=(const V& v) { return *this = V(*this) * v; }

 private:
  T* p_;
  uint32_t key_;
  uint32_t off_;
};

// A 1-D view of an array (global, or dynamic shared): pointer arithmetic as in CUDA.
template <class T>
class Ptr {
 public:
  Ptr(T* p, const char* base, uint64_t size, uint32_t buffer)
      : p_(p), base_(base), size_(size), buffer_(buffer) {}
  WS_EMU_INLINE Ref<T> operator[](Idx i) const {
    T* q = p_ + i.i;
    int64_t off = reinterpret_cast<const char*>(q) - base_;
    if (off < 0 || uint64_t(off) + sizeof(T) > size_) out_of_bounds(i.line, buffer_, off, size_);
    return Ref<T>(q, trace::make_key(i.line, buffer_, uint32_t(trace::Op::Load), sizeof(T)), uint32_t(off));
  }
  Ptr operator+(int64_t d) const { return Ptr(p_ + d, base_, size_, buffer_); }
  Ptr& operator+=(int64_t d) {
    p_ += d;
    return *this;
  }

 private:
  T* p_;
  const char* base_;
  uint64_t size_;
  uint32_t buffer_;
};

// A 2-D static shared array T[R][C]: a[r] is a row, a[r][c] an element.
template <class T, int C>
class Ptr2 {
 public:
  Ptr2(T* p, uint64_t size, uint32_t buffer) : p_(p), size_(size), buffer_(buffer) {}
  WS_EMU_INLINE Ptr<T> operator[](Idx r) const {
    return Ptr<T>(p_ + r.i * C, reinterpret_cast<const char*>(p_), size_, buffer_);
  }
  // The same array as rows of U (view_as in contract.h).
  template <class U>
  Ptr2<U, int(C * sizeof(T) / sizeof(U))> as() const {
    return Ptr2<U, int(C * sizeof(T) / sizeof(U))>(reinterpret_cast<U*>(p_), size_, buffer_);
  }

 private:
  T* p_;
  uint64_t size_;
  uint32_t buffer_;
};

template <class A>
struct SharedView;
template <class T, int N>
struct SharedView<T[N]> {
  using type = Ptr<T>;
  static type make(const char* name) {
    SharedSlot s = shared_slot(name, sizeof(T) * N, sizeof(T), 1, N);
    return type(reinterpret_cast<T*>(s.ptr), s.ptr, s.size, s.buffer);
  }
};
template <class T, int R, int C>
struct SharedView<T[R][C]> {
  using type = Ptr2<T, C>;
  static type make(const char* name) {
    SharedSlot s = shared_slot(name, sizeof(T) * R * C, sizeof(T), R, C);
    return type(reinterpret_cast<T*>(s.ptr), s.size, s.buffer);
  }
};

// Buffer sizes of the running launch, indexed by buffer id (set by the machine).
extern constinit thread_local const uint64_t* buffer_sizes;

struct Ctx {
  template <class T>
  Ptr<T> global(Buf<T> b) const {
    return Ptr<T>(b.ptr, reinterpret_cast<const char*>(b.ptr), buffer_sizes[b.id], b.id);
  }
  template <class A>
  typename SharedView<A>::type shared(const char* name) const {
    return SharedView<A>::make(name);
  }
  template <class T>
  Ptr<T> dynamic_shared(const char* name) const {
    SharedSlot s = dynamic_shared_slot(name, sizeof(T));
    return Ptr<T>(reinterpret_cast<T*>(s.ptr), s.ptr, s.size, s.buffer);
  }
  void barrier() const { emu::barrier(); }
};

}  // namespace ws::emu
