// nvdisasm's listing of a module, with and without -gi line information.
#include "fuzz.h"
#include "sass/import.h"

WS_FUZZ_TARGET(text) { (void)ws::sass::parse_disassembly(text, {"helper.cuh"}); }
