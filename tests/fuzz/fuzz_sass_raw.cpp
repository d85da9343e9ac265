// The GPU tracer's raw records file, as `warpscope run --backend gpu` reads it back.
#include "fuzz.h"
#include "sass/import.h"

WS_FUZZ_TARGET(bytes) { (void)ws::sass::read_raw(bytes); }
