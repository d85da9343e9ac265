// src/session/report.h — a Session in words: `warpscope report`'s text and JSON (the launch
// header, the analysis's tables, the source gutter's lines, a request's lanes, a program's
// GPU times), and the "H100 ran …" line the source panel shows under a line of code. Every
// figure comes from the Session; only the wording is composed here.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "session/session.h"

namespace ws::session {

// What a GPU ran for a line beside what the emulated device ran: "H100 ran 512 LDS + 128
// LDS.128 a block (PTX: 1024 ld.shared.f32): ptxas merged …", or ": the same".
std::string hardware_text(const LineHardware& h);

// The source gutter's figures of every line that touches memory, as `warpscope report`
// prints them: text (one line each) and JSON (the report's "source_lines" array).
std::string source_lines_text(const Session& s);
std::string source_lines_json(const Session& s);

// The figures of request `step` as the warp inspector shows them (`warpscope report
// --step K`): which lanes read which sector, or which word in which bank and phase.
std::string request_text(const Session& s, uint64_t step);
std::string request_json(const Session& s, uint64_t step);

// The text report of `shown` (launches of one trace): per launch its header, sites,
// epochs, source lines and, with `step` >= 0, that request; then a program's GPU times.
// Unrecorded launches alike, one after another, make one line ("launches 4–301:
// MatrixMulCUDA<32> ×298, as launch 3 (not recorded: …)").
std::string report_text(const std::vector<std::shared_ptr<const Session>>& shown, int64_t step);
// The JSON report (version 2): what recorded the trace, the DRAM model, the check, and one
// entry per launch in `shown` (one per run of unrecorded launches alike: "launches" [first,
// last], "count", "as_launch"); one line.
std::string report_json(const std::vector<std::shared_ptr<const Session>>& shown, int64_t step);

}  // namespace ws::session
