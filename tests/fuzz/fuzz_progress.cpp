// A lesson progress file, which the app reads at start.
#include "fuzz.h"
#include "lesson/progress.h"

WS_FUZZ_TARGET(text) { (void)ws::lesson::parse_progress(text, "progress.json"); }
