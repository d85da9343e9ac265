// tests/fuzz/fuzz.h — what every fuzz target allows a reader of outside input to do: return,
// or refuse with one of warpscope's errors (all std::runtime_error). Anything else — a
// crash, a sanitizer report, a hang, an allocation past libFuzzer's limit, or any other
// exception (std::out_of_range from .at(), a JSON library type error: messages a user
// should never see) — is a finding.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

// libFuzzer's entry point; the corpus replay of the ordinary test build (replay_main.cpp)
// gives each target its own name instead, so that one program runs them all.
#ifndef WS_FUZZ_ENTRY
#define WS_FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif

#define WS_FUZZ_TARGET(text)                                                   \
  static void ws_fuzz_one(const std::string& text);                           \
  extern "C" int WS_FUZZ_ENTRY(const uint8_t* data, size_t size) {             \
    try {                                                                      \
      ws_fuzz_one(std::string(reinterpret_cast<const char*>(data), size));    \
    } catch (const std::runtime_error&) {                                      \
    }                                                                          \
    return 0;                                                                  \
  }                                                                            \
  static void ws_fuzz_one(const std::string& text)
