// src/session/hardware.h — what the hardware executed, from the replay pack: the SASS
// traces a GPU recorded of the catalog's kernels (assets/replay/sass/catalog/, their plain
// instantiations traced by `warpscope sass`) and of the test programs (by the hash of
// their sources). Beside the emulated
// device's trace of the same launch (Session::hardware) they give each line's SASS
// instructions ("512 LDS + 128 LDS.128 a block") on a machine with no GPU.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "trace/trace.h"

namespace ws::session {

// The replay pack's SASS trace `name` (assets/replay/sass/NAME.wstrace, "catalog/ID" for a
// catalog kernel's) when it is there, readable and `fits`; else null.
std::shared_ptr<const trace::Trace> replay_sass(const std::string& name,
                                                const std::function<bool(const trace::Trace&)>& fits);
// The replay pack's SASS trace of the program whose sources and flags hash to `hash`
// (program::source_hash; the pack's index, assets/replay/sass/programs.json, says which
// trace was recorded from which), when it `fits`; else null. Never by the file's name: a
// program the pack did not record, or an edited one, gets none.
std::shared_ptr<const trace::Trace> replay_program_sass(const std::string& hash,
                                                        const std::function<bool(const trace::Trace&)>& fits);
// Every line a catalog trace's sites name reads the same in the kernel file as it is built
// now: the SASS was compiled from that text. A trace recorded before its kernel file was
// edited (a line moved or rewritten) would set its instructions beside other source lines.
bool same_source_lines(const trace::Trace& t);
// The replay pack's SASS trace of catalog kernel `id` with exactly these parameters, whose
// sites' source lines read as the kernel file does now; null when there is none (or the
// file was edited since: its instructions would stand beside other lines).
std::shared_ptr<const trace::Trace> replay_catalog_sass(const std::string& id, const std::map<std::string, int64_t>& params);

}  // namespace ws::session
