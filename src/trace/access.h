// src/trace/access.h — the array wrappers of the instrumented kernels, written once for
// the CPU emulator and the GPU's record and counts contexts. A kernel body indexes them as
// it would a raw pointer (`out[i] = in[i]`, `tile[ty][tx]`); each lane-level access
// becomes (site key, byte offset from the array's start), handed to a Sink that decides
// where it goes: the emulator's lane log, the GPU's record log, the GPU's counts tables.
//
// It lives in the trace layer, not beside the kernels: the kernel files hold only what a
// kernel's text includes (contract.h) and are embedded in the binary as the source shown,
// while what these wrappers produce is the raw material of a trace (site keys and
// offsets), and trace depends on nothing, so both backends may include it. The plain GPU
// context uses none of this: it hands the kernel raw pointers.
//
// A Sink is a small value copied into every wrapper, with
//   void load(uint32_t key, uint32_t off) const;   // a lane read the element
//   bool store(uint32_t key, uint32_t off) const;  // a lane writes it (the site's key is
//                                                  // store_key(key)); false: do not write
//   void fault(uint32_t line, uint32_t buffer, int64_t off, uint64_t size) const;
//                                                  // out of bounds (may not return)
// An out-of-bounds access is reported through fault(); if that returns, the access goes on
// as a refused one (key kNoKey) aimed at the array's first element, which the sink must
// neither record nor let a store reach.
//
// The wrappers run once per lane access: every member is forced inline, so that a kernel
// body compiles to the sink's own code between plain loads and stores.
#pragma once
#include <cstdint>
#include <type_traits>

#include "trace/site_key.h"

namespace ws::trace {

// An index that remembers the kernel source line of the expression that produced it: the
// implicit conversion at `a[expr]` takes the caller's line as its default argument.
struct Idx {
  int64_t i;
  uint32_t line;
  WS_INLINE_HD Idx(int64_t v, uint32_t l = __builtin_LINE()) : i(v), line(l) {}
};

// One element of an array, as an access: reading it or assigning to it is the access.
template <class Sink, class T>
class Ref {
 public:
  using V = std::remove_const_t<T>;
  WS_INLINE_HD Ref(T* p, Sink s, uint32_t key, uint32_t off) : p_(p), sink_(s), key_(key), off_(off) {}
  WS_INLINE_HD operator V() const {
    sink_.load(key_, off_);
    return *p_;
  }
  WS_INLINE_HD Ref& operator=(const V& v) {
    if (sink_.store(key_, off_)) *p_ = v;
    return *this;
  }
  WS_INLINE_HD Ref& operator=(const Ref& r) { return *this = V(r); }
  template <class U>
  WS_INLINE_HD Ref& operator=(const Ref<Sink, U>& r) {
    return *this = V(r);
  }
  WS_INLINE_HD Ref& operator+=(const V& v) { return *this = V(*this) + v; }
  WS_INLINE_HD Ref& operator-=(const V& v) { return *this = V(*this) - v; }
  WS_INLINE_HD Ref& operator*=(const V& v) { return *this = V(*this) * v; }
  // The element as a warp-wide call (ldmatrix, cp.async) takes it: where it is and the
  // site it was indexed at; the call records the access itself, in its own width.
  WS_INLINE_HD T* ptr() const { return p_; }
  WS_INLINE_HD uint32_t key() const { return key_; }
  WS_INLINE_HD uint32_t offset() const { return off_; }

 private:
  T* p_;
  [[no_unique_address]] Sink sink_;  // the emulator's takes no room
  uint32_t key_;
  uint32_t off_;
};

// A 1-D view of an array (global, or shared): pointer arithmetic as in CUDA, offsets from
// the array's start.
template <class Sink, class T>
class Ptr {
 public:
  WS_INLINE_HD Ptr(T* p, const char* base, uint64_t size, uint32_t buffer, Sink s)
      : p_(p), base_(base), size_(size), buffer_(buffer), sink_(s) {}
  // One Ref built after the check, from selected values: on the GPU a sink that holds the
  // context must not pass through a branch, or the compiler keeps the context in local
  // memory (every access would then load and store its log position there). A refused
  // access points at the array's first element, so the pointer stays in the array's
  // memory space (shared loads stay LDS). Where fault() does not return (the emulator),
  // the selects fold away.
  WS_INLINE_HD Ref<Sink, T> operator[](Idx i) const {
    T* q = p_ + i.i;
    const int64_t off = reinterpret_cast<const char*>(q) - base_;
    const bool ok = off >= 0 && uint64_t(off) + sizeof(T) <= size_;
    if (!ok) sink_.fault(i.line, buffer_, off, size_);
    return Ref<Sink, T>(ok ? q : reinterpret_cast<T*>(const_cast<char*>(base_)), sink_,
                        ok ? make_key(i.line, buffer_, uint32_t(Op::Load), sizeof(T)) : kNoKey,
                        ok ? uint32_t(off) : 0u);
  }
  WS_INLINE_HD Ptr operator+(int64_t d) const { return Ptr(p_ + d, base_, size_, buffer_, sink_); }
  WS_INLINE_HD Ptr& operator+=(int64_t d) {
    p_ += d;
    return *this;
  }

 private:
  T* p_;
  const char* base_;
  uint64_t size_;
  uint32_t buffer_;
  [[no_unique_address]] Sink sink_;
};

// A 2-D static shared array T[R][C]: a[r] is a row, a[r][c] an element.
template <class Sink, class T, int C>
class Ptr2 {
 public:
  WS_INLINE_HD Ptr2(T* p, uint64_t size, uint32_t buffer, Sink s) : p_(p), size_(size), buffer_(buffer), sink_(s) {}
  WS_INLINE_HD Ptr<Sink, T> operator[](Idx r) const {
    return Ptr<Sink, T>(p_ + r.i * C, reinterpret_cast<const char*>(p_), size_, buffer_, sink_);
  }
  // The same array as rows of U (view_as in contract.h).
  template <class U>
  WS_INLINE_HD Ptr2<Sink, U, int(C * sizeof(T) / sizeof(U))> as() const {
    return Ptr2<Sink, U, int(C * sizeof(T) / sizeof(U))>(reinterpret_cast<U*>(p_), size_, buffer_, sink_);
  }

 private:
  T* p_;
  uint64_t size_;
  uint32_t buffer_;
  [[no_unique_address]] Sink sink_;
};

// The view of a static shared array of type A (T[N] or T[R][C]) and the shape the trace's
// buffer table gives it.
template <class Sink, class A>
struct SharedView;
template <class Sink, class T, int N>
struct SharedView<Sink, T[N]> {
  using type = Ptr<Sink, T>;
  using elem = T;
  static constexpr uint64_t rows = 1, cols = N, bytes = sizeof(T) * N;
  static WS_INLINE_HD type make(T* p, uint32_t buffer, Sink s) {
    return type(p, reinterpret_cast<const char*>(p), bytes, buffer, s);
  }
};
template <class Sink, class T, int R, int C>
struct SharedView<Sink, T[R][C]> {
  using type = Ptr2<Sink, T, C>;
  using elem = T;
  static constexpr uint64_t rows = R, cols = C, bytes = sizeof(T) * R * C;
  static WS_INLINE_HD type make(T* p, uint32_t buffer, Sink s) { return type(p, bytes, buffer, s); }
};

}  // namespace ws::trace
