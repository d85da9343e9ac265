// src/cli/catalog_sass.h — a catalog kernel as a GPU executed it: warpscope runs itself as
// a child (`plain-launch`, hidden: the kernel's plain instantiation once) under the GPU
// tracer, through program::run's GPU path for a binary, and names the trace's kernel,
// parameters and arrays as the catalog does. The command line of that child is the CLI's
// own, so it is written here, beside the command that parses it.
#pragma once
#include "session/launch.h"
#include "trace/trace.h"

namespace ws::cli {

// Traces `l` (a catalog launch) on this machine's GPU. Throws session::InputError for a
// launch that is not the catalog's, std::runtime_error (one line) without a GPU or tracer.
trace::Trace catalog_sass(const session::ResolvedLaunch& l);

}  // namespace ws::cli
