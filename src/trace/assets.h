// src/trace/assets.h — where warpscope's data lives (the assets/ folder of the source tree:
// lessons, slide decks, the replay pack of GPU timings), wherever the program was started
// from. One lookup for every user: `warpscope bench`, the app's timing panel, lessons.
// Here, in the trace layer, because every layer and front end links it.
#pragma once
#include <string>
#include <vector>

namespace ws::trace {

// The folders that may hold the assets, in the order they are searched, for a binary in
// `exe_dir` built from a tree whose assets are at `source_assets` ("" : unknown):
//   <exe_dir>/assets                 a folder copied next to the binary
//   <exe_dir>/../assets              an unpacked archive (bin/ beside assets/)
//   <exe_dir>/../share/warpscope     an installed prefix (bin/ beside share/)
//   <source_assets>                  the source tree the build came from
std::vector<std::string> asset_roots(const std::string& exe_dir, const std::string& source_assets);
// The folder of the running binary ("" when it cannot be read).
std::string exe_dir();
// The first of asset_roots(exe_dir(), <the source tree of this build>) holding `rel`
// ("replay", "replay/bench.json"), as a path; "" when none does.
std::string find_asset(const std::string& rel);
// The same search over `roots`.
std::string find_asset_in(const std::vector<std::string>& roots, const std::string& rel);
// An example program by its file name ("tma_ring.cu"): examples/ beside the assets where
// installed (share/warpscope/examples), else the source tree's examples/ (beside assets/);
// "" when neither holds it.
std::string find_example(const std::string& file);

}  // namespace ws::trace
