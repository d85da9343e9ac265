// src/emu/context.h — the CPU execution context of a kernel. Array accesses go through
// the access layer's wrappers (trace/access.h), which perform the access on host memory;
// their sink appends (site key, byte offset) to the running thread's log, and the machine
// turns the 32 logs of a warp into warp-level records at each barrier.
#pragma once
#include <cstdint>

#include "contract.h"
#include "trace/access.h"

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

// Where the wrappers send a lane's access: the running thread's log. An out-of-bounds
// access throws, so the wrappers never see a refused one.
struct LogSink {
  WS_INLINE_HD void load(uint32_t key, uint32_t off) const { current_log->push(key, off); }
  WS_INLINE_HD bool store(uint32_t key, uint32_t off) const {
    current_log->push(trace::store_key(key), off);
    return true;
  }
  [[noreturn]] void fault(uint32_t line, uint32_t buffer, int64_t off, uint64_t size) const {
    out_of_bounds(line, buffer, off, size);
  }
};

template <class T>
using Ptr = trace::Ptr<LogSink, T>;

// Buffer sizes of the running launch, indexed by buffer id (set by the machine).
extern constinit thread_local const uint64_t* buffer_sizes;

struct Ctx {
  template <class T>
  Ptr<T> global(Buf<T> b) const {
    return Ptr<T>(b.ptr, reinterpret_cast<const char*>(b.ptr), buffer_sizes[b.id], b.id, LogSink{});
  }
  template <class A>
  typename trace::SharedView<LogSink, A>::type shared(const char* name) const {
    using SV = trace::SharedView<LogSink, A>;
    SharedSlot s = shared_slot(name, SV::bytes, sizeof(typename SV::elem), SV::rows, SV::cols);
    return SV::make(reinterpret_cast<typename SV::elem*>(s.ptr), s.buffer, LogSink{});
  }
  template <class T>
  Ptr<T> dynamic_shared(const char* name) const {
    SharedSlot s = dynamic_shared_slot(name, sizeof(T));
    return Ptr<T>(reinterpret_cast<T*>(s.ptr), s.ptr, s.size, s.buffer, LogSink{});
  }
  void barrier() const { emu::barrier(); }
};

}  // namespace ws::emu
