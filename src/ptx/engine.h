// src/ptx/engine.h — the two engines of the emulated device. The interpreter runs a
// kernel's decoded instructions one warp instruction at a time; the compiling engine turns
// each kernel of a module into C++ (codegen.cpp) — the same semantic functions (arith.h)
// over a warp's 32 lanes as vectors, its control flow as jumps — compiled once by the
// system's compiler into a shared library cached by a hash of what it was made from, and
// loaded (engine.cpp). Both run on one BlockRun and give the same results, records and
// faults: the compiled code hands everything it does not run itself to the interpreter.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ptx/compiled.h"
#include "ptx/ptx.h"

namespace ws::ptx {

enum class Engine : uint8_t { Compiled, Interpreter };
const char* engine_name(Engine e);
// "compiled" / "interpreter"; false for anything else.
bool parse_engine(const std::string& text, Engine& e);

// Where the compiling engine keeps its libraries and which compiler it runs.
struct EngineOptions {
  std::string cache_dir;            // "": $XDG_CACHE_HOME/warpscope/engine, else ~/.cache/warpscope/engine
  std::string compiler = "c++";     // the system's C++ compiler (C++20)
};

// The C++ text of a module's kernels for the compiling engine: one function
// `ws_kernel_<i>(compiled::Ctx&)` per kernel i that can run (Kernel::refused empty).
std::string generate(const Module& m);

// A module's kernels compiled to native code and loaded.
class CompiledModule {
 public:
  // Generates, compiles (or finds in the cache) and loads `m`'s code. Never throws: a
  // module that could not be compiled has no entries and says why in error().
  static std::shared_ptr<CompiledModule> build(const Module& m, const EngineOptions& o);
  ~CompiledModule();
  CompiledModule(const CompiledModule&) = delete;
  CompiledModule& operator=(const CompiledModule&) = delete;

  // Kernel i's entry (Module::kernels order), null when it runs on the interpreter.
  compiled::Entry entry(size_t kernel) const { return kernel < entries_.size() ? entries_[kernel] : nullptr; }
  // Why the module runs on the interpreter ("" when it compiled): one line.
  const std::string& error() const { return error_; }
  double compile_seconds() const { return compile_seconds_; }  // 0 when found in the cache
  const std::string& library() const { return library_; }      // the shared library's path

 private:
  CompiledModule() = default;
  void* handle_ = nullptr;
  std::vector<compiled::Entry> entries_;
  std::string error_, library_;
  double compile_seconds_ = 0;
};

// The texts the generated code includes (its headers, and half.cpp compiled beside it), as
// this build embeds them: path -> text.
const std::vector<std::pair<std::string, std::string>>& engine_sources();

}  // namespace ws::ptx
