// kernels/all.h — every catalog entry, in teaching order. Backends expand WS_CATALOG to
// instantiate each entry's run() with their own launcher. The entries of a kernel header
// are in entries/ under the same name; each includes its kernels.
#pragma once
#include "entries/async_copy.h"
#include "entries/basics.h"
#include "entries/matmul.h"
#include "entries/swizzle.h"
#include "entries/tensor.h"
#include "entries/tma.h"
#include "entries/transpose.h"
#include "entries/wgmma.h"

#define WS_CATALOG(X)             \
  X(copy)                         \
  X(strided_copy)                 \
  X(offset_copy)                  \
  X(pmpp_exercise)                \
  X(transpose_read_coalesced)     \
  X(transpose_write_coalesced)    \
  X(transpose_tiled)              \
  X(transpose_tiled_dynamic)      \
  X(matmul_naive_uncoalesced)     \
  X(matmul_naive)                 \
  X(matmul_naive_colmajor)        \
  X(matmul_tiled)                 \
  X(matmul_corner_turning)        \
  X(matmul_coarse1d)              \
  X(matmul_coarse2d)              \
  X(matmul_coarse2d_vec)          \
  X(matmul_siboehm5)              \
  X(matmul_siboehm6)              \
  X(matmul_xgemm6)                \
  X(matmul_warptile)              \
  X(matmul_double_buffer)         \
  X(matmul_tuned)                 \
  X(swizzle_plain)                \
  X(swizzle_padded)               \
  X(swizzle_xor)                  \
  X(async_copy_tiles)             \
  X(tma_copy)                     \
  X(tma_transpose)                \
  X(tc_mma_plain)                 \
  X(tc_mma_swizzled)              \
  X(tc_mma_pipelined)             \
  X(tc_mma_tuned)                 \
  X(tc_wgmma)                     \
  X(tc_wgmma_cluster)
