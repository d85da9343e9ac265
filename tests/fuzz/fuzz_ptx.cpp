// A PTX module as nvcc writes it, parsed and decoded for the emulated device.
#include "fuzz.h"
#include "ptx/ptx.h"

WS_FUZZ_TARGET(text) { (void)ws::ptx::parse(text, "fuzz.ptx"); }
