// A lesson file (JSON), as `warpscope lesson FILE` and the app's lesson panel read it.
#include "fuzz.h"
#include "lesson/lesson.h"

WS_FUZZ_TARGET(text) { (void)ws::lesson::parse(text, "fuzz.json"); }
