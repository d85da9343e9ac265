// src/trace/site_key.h — a site of the trace in 32 bits: the key that both backends attach
// to every lane access (the emulator's lane logs; the GPU's logs, records and tables) and
// turn back into a trace::Site. One definition, so that the emulator and the GPU agree on
// it bit for bit. Included by the host compiler and by nvcc: integer arithmetic only.
//
//   bits 0-15 line, 16-23 buffer id, 24-25 op (trace::Op), 26-28 log2(bytes per lane),
//   29-31 the site's form (trace::Form: plain, an ldmatrix row, an async copy's half).
// A key whose bits 29-31 are all set is an event (an instruction that moves no memory):
// bits 24-28 hold its trace::Form (mma, commit, wait), bits 16-23 are zero, and the log
// entry's offset carries the event's argument (a wait's group count).
#pragma once
#include <cstdint>

// Host and device, and always inlined: the key is built once per lane access.
#if defined(__CUDACC__)
#define WS_INLINE_HD __host__ __device__ __forceinline__
#else
#define WS_INLINE_HD __attribute__((always_inline)) inline
#endif

namespace ws::trace {

enum class Op : uint8_t { Load = 0, Store = 1, Atomic = 2 };

// No site: an access that was refused (out of bounds), never recorded.
constexpr uint32_t kNoKey = 0xffffffffu;
// The offset of a lane's entry at a warp-collective instruction it takes no row of (an
// ldmatrix .x1/.x2 reads the rows of lanes 0-7/0-15 only): the entry says the lane was
// there, so that the instruction's lanes are grouped as one, and is no access.
constexpr uint32_t kNoRow = 0xffffffffu;
// The cp.async copies a lane may have issued and not yet seen land (its wait not yet
// returned). The GPU's instrumented contexts track this many a lane for their shared
// writes; the emulated device refuses a kernel that keeps more in flight, so that no
// recording on either side loses a write.
constexpr uint32_t kCopiesInFlight = 64;

WS_INLINE_HD constexpr uint32_t log2_bytes(uint32_t bytes) {
  return bytes == 1 ? 0u : bytes == 2 ? 1u : bytes == 4 ? 2u : bytes == 8 ? 3u : 4u;
}
WS_INLINE_HD constexpr uint32_t make_key(uint32_t line, uint32_t buffer, uint32_t op, uint32_t bytes) {
  return (line & 0xffffu) | (buffer << 16) | (op << 24) | (log2_bytes(bytes) << 26);
}
// The same site, written instead of read (a load key has op 0).
WS_INLINE_HD constexpr uint32_t store_key(uint32_t load) { return load | (uint32_t(Op::Store) << 24); }
WS_INLINE_HD constexpr uint32_t key_line(uint32_t k) { return k & 0xffffu; }
WS_INLINE_HD constexpr uint32_t key_buffer(uint32_t k) { return (k >> 16) & 0xffu; }
WS_INLINE_HD constexpr uint32_t key_op(uint32_t k) { return (k >> 24) & 3u; }
WS_INLINE_HD constexpr uint32_t key_bytes(uint32_t k) { return 1u << ((k >> 26) & 7u); }

// The form bits (the values of trace::Form, whose memory forms are 0..5).
constexpr uint32_t kEventTag = 7u;
WS_INLINE_HD constexpr uint32_t with_form(uint32_t key, uint32_t form) { return (key & 0x1fffffffu) | (form << 29); }
WS_INLINE_HD constexpr uint32_t key_form(uint32_t k) { return k >> 29; }
// An event's key: its line and its trace::Form (Mma, Commit, Wait).
WS_INLINE_HD constexpr uint32_t event_key(uint32_t line, uint32_t form) {
  return (line & 0xffffu) | ((form & 0x1fu) << 24) | (kEventTag << 29);
}
WS_INLINE_HD constexpr bool key_is_event(uint32_t k) { return k >> 29 == kEventTag; }
WS_INLINE_HD constexpr uint32_t key_event_form(uint32_t k) { return (k >> 24) & 0x1fu; }

}  // namespace ws::trace
