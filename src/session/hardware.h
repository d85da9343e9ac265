// src/session/hardware.h — what the hardware executed for a catalog kernel: its plain
// instantiation (the one `bench` times) run once in a child warpscope under the GPU tracer,
// traced at the SASS level, the trace's kernel, parameters and arrays the catalog's. Beside
// the emulated device's trace of the same launch (Session::hardware) it gives each line's
// SASS instructions ("512 LDS + 128 LDS.128 a block"); without a GPU the replay pack's
// traces of the catalog (assets/replay/sass/catalog/, recorded on a GPU) stand in.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "session/launch.h"
#include "trace/trace.h"

namespace ws::session {

// Traces `l` (a catalog launch) on this machine's GPU. Throws InputError for a launch
// that is not the catalog's, std::runtime_error (one line) without a GPU or tracer.
trace::Trace catalog_sass(const Launch& l);

// The replay pack's SASS trace `name` (assets/replay/sass/NAME.wstrace: a program's stem,
// or "catalog/ID") when it is there, readable and `fits`; else null.
std::shared_ptr<const trace::Trace> replay_sass(const std::string& name,
                                                const std::function<bool(const trace::Trace&)>& fits);
// The replay pack's SASS trace of catalog kernel `id` with exactly these parameters; null
// when there is none.
std::shared_ptr<const trace::Trace> replay_catalog_sass(const std::string& id, const std::map<std::string, int64_t>& params);

// Runs `l`'s plain instantiation once on the GPU (the child catalog_sass starts). Throws
// std::runtime_error without a GPU.
void run_plain_once(const Launch& l);

}  // namespace ws::session
