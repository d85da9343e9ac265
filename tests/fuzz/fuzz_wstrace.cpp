// A .wstrace file (v1 and v2): decoded, and what decodes is written and read back equal.
#include "fuzz.h"
#include "trace/wstrace.h"

WS_FUZZ_TARGET(bytes) {
  const ws::trace::Trace t = ws::trace::decode_trace(bytes);
  const ws::trace::Trace back = ws::trace::decode_trace(ws::trace::encode_trace(t));
  if (back.records.size() != t.records.size() || back.sites.size() != t.sites.size()) __builtin_trap();
}
