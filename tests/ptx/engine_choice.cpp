// tests/ptx/engine_choice.cpp — which engine this test binary's emulated devices start on:
// the interpreter, or with WS_TEST_ENGINE=compiled the compiling engine (its libraries kept
// in WS_TEST_ENGINE_CACHE), so that ctest runs the same tests on both (test_ptx and
// test_ptx_compiled).
#include <cstdlib>
#include <string>

#include "ptx/machine.h"

namespace {

const bool chosen = [] {
  const char* e = std::getenv("WS_TEST_ENGINE");
  if (e && std::string(e) == "compiled") {
    const char* cache = std::getenv("WS_TEST_ENGINE_CACHE");
    ws::ptx::EngineOptions o;
    o.cache_dir = cache ? cache : "";
    o.wait = true;  // every launch on the native code, from the first
    ws::ptx::set_default_engine(ws::ptx::Engine::Compiled, o);
  }
  return true;
}();

}  // namespace
