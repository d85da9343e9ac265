// src/trace/site_key.h — a site of the trace in 32 bits: the key that both backends attach
// to every lane access (the emulator's lane logs; the GPU's logs, records and tables) and
// turn back into a trace::Site. One definition, so that the emulator and the GPU agree on
// it bit for bit. Included by the host compiler and by nvcc: integer arithmetic only.
//
//   bits 0-15 line, 16-23 buffer id, 24-25 op (trace::Op), 26-28 log2(bytes per lane)
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

}  // namespace ws::trace
