// kernels/dispatch.h — a catalog entry's run() for a backend's launcher, found by id. The
// emulator and each GPU mode have a launcher type of their own; every one of them reaches
// the catalog through this, so a new entry in WS_CATALOG (all.h) is found everywhere.
#pragma once
#include <string>

#include "all.h"

namespace ws::catalog {

template <class L>
using RunFn = void (*)(L&, const Params&);

// The catalog entry `id` instantiated for launcher L, or null.
template <class L>
RunFn<L> find_run(const std::string& id) {
#define WS_FIND_RUN(name) \
  if (id == #name) return [](L& l, const Params& p) { kernels::name::run(l, p); };
  WS_CATALOG(WS_FIND_RUN)
#undef WS_FIND_RUN
  return nullptr;
}

}  // namespace ws::catalog
