// src/ptx/windows.h — where the emulated device's addresses live: its global allocations
// and the generic windows of shared memory, the local frames, the constant bank and the
// parameters. Shared by the machine (machine.h), the semantic functions (arith.h) and the
// code the compiling engine makes (compiled.h). Depends on nothing.
#pragma once
#include <cstdint>

namespace ws::ptx {

// Where device addresses live. Global allocations start at kGlobalBase; a generic address
// in one of the windows goes to shared memory, the thread's local frame or the constant
// bank, as cvta makes them.
constexpr uint64_t kGlobalBase = 0x0000'0a00'0000'0000ull;
constexpr uint64_t kSharedWindow = 0x0000'0b00'0000'0000ull;
constexpr uint64_t kLocalWindow = 0x0000'0b10'0000'0000ull;
constexpr uint64_t kConstWindow = 0x0000'0b20'0000'0000ull;
constexpr uint64_t kParamWindow = 0x0000'0b30'0000'0000ull;
constexpr uint64_t kWindowBytes = 0x0000'0010'0000'0000ull;
// In the parameter space: the thread's call area (arguments and return values of calls
// to device functions) starts here; below it are the kernel's parameters.
constexpr uint64_t kCallArea = 1ull << 24;
// A shared::cluster address (mapa makes them): the CTA's shared window offset in the low 24
// bits, its rank in the cluster + 1 above them; an offset alone (rank bits 0) is the
// executing CTA's own. The same in the generic shared window.
constexpr uint32_t kClusterRankShift = 24;
constexpr uint64_t kClusterOffsetMask = (1ull << kClusterRankShift) - 1;

}  // namespace ws::ptx
