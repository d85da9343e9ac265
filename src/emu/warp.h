// src/emu/warp.h — what the emulator does where a warp's lanes act together or a lane's
// copies wait: the values of ldmatrix and mma, worked out from the 32 lanes' operands
// once every lane has reached the call (the machine's warp rendezvous), and the copies a
// lane issued with cp.async, kept until a wait lands them. Plain data and arithmetic; the
// machine (machine.cpp) schedules and records.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ws::emu {

// A warp-wide call, as each lane brings it to the rendezvous.
enum class WarpOp : uint8_t { None = 0, Ldmatrix, Mma, Wgmma };

struct MeetSlot {
  WarpOp op = WarpOp::None;
  uint32_t line = 0;      // kernel line of the call
  const char* row = nullptr;  // ldmatrix: this lane's 16-byte row
  uint32_t matrices = 0;  // ldmatrix: 1, 2 or 4
  bool trans = false;     // ldmatrix .trans
  uint32_t in[10] = {};   // mma: a[4], b[2], c[4] (float bits)
  uint32_t out[4] = {};   // the lane's result registers
  float* acc = nullptr;   // wgmma: the lane's accumulators (n / 2 of them), updated in place
  uint64_t da = 0, db = 0;  // wgmma: the descriptors of A and B
  uint32_t n = 0;         // wgmma: the shape's N
};

// The results of a rendezvous of `n` lanes (slots[0..n), all at the same op): ldmatrix
// fragments or mma accumulators, written to each slot's `out`.
void perform_ldmatrix(MeetSlot* slots, int n);
void perform_mma(MeetSlot* slots, int n);
// wgmma.mma_async m64nNk16 f32.f16.f16, A and B from shared memory (`shared`: the block's
// arena, which descriptor addresses count from) through K-major descriptors under the
// 128-byte swizzle: the 16 rows of D that warp `quarter` (0-3) of the warpgroup holds,
// added into each lane's accumulators. A descriptor of another layout is refused: the
// error, or "" when done.
std::string perform_wgmma(MeetSlot* slots, int n, const char* shared, uint64_t shared_bytes, uint32_t quarter);

// One cp.async a lane issued: where it lands, its bytes (read at issue) and its group.
struct PendingCopy {
  char* dst = nullptr;
  uint32_t key = 0;  // the shared write's site key (AsyncWrite)
  uint32_t off = 0;  // byte offset in the shared array
  uint32_t bytes = 0;
  uint32_t group = 0;  // commit group; kUncommitted until the lane commits
  unsigned char data[16] = {};
};
constexpr uint32_t kUncommitted = 0xffffffffu;

// A lane's 16-byte piece of a TMA box: its bytes, read at issue, land in shared memory when
// the mbarrier's phase completes (Landing, kept by the block); the lane records the write
// at its next mbarrier wait, or at its end (BoxWrite).
struct Landing {
  const char* bar = nullptr;
  char* dst = nullptr;
  unsigned char data[16] = {};
};
// A lane's 16-byte piece of a TMA store: read from shared memory at issue, written to the
// global array (and recorded) when a bulk wait covers its group.
struct StorePiece {
  char* dst = nullptr;
  uint32_t key = 0;  // the global write's site key (BulkWrite)
  uint32_t off = 0;  // byte offset in the global array
  uint32_t group = 0;
  unsigned char data[16] = {};
};
struct BoxWrite {
  uint32_t key = 0;  // the shared write's site key (BulkWrite)
  uint32_t off = 0;  // byte offset in the shared array
};

}  // namespace ws::emu
