// kernels/all.h — every catalog entry, in teaching order. Backends expand WS_CATALOG to
// instantiate each entry's run() with their own launcher.
#pragma once
#include "transpose.h"

#define WS_CATALOG(X)             \
  X(transpose_read_coalesced)     \
  X(transpose_write_coalesced)    \
  X(transpose_tiled)              \
  X(transpose_tiled_dynamic)
