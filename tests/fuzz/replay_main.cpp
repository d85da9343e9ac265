// Runs every file of tests/fuzz/corpus/<target>/ through its fuzz target, in the ordinary
// (sanitized) test build: the seeds, and every input a fuzzing run ever found, kept as
// regressions. The fuzzing itself is scripts/fuzz.sh (clang's libFuzzer).
//   fuzz_replay CORPUS_DIR
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#define WS_FUZZ_LIST(X)                                                                                    \
  X(wstrace) X(bench_json) X(ptx) X(ptx_run) X(runtime) X(sass_raw) X(sass_dis) X(lesson) X(progress) X(deck) \
  X(settings) X(params)
#define WS_FUZZ_DECLARE(name) extern "C" int ws_fuzz_##name(const uint8_t*, size_t);
WS_FUZZ_LIST(WS_FUZZ_DECLARE)

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_replay CORPUS_DIR\n");
    return 2;
  }
  struct Target {
    const char* name;
    int (*run)(const uint8_t*, size_t);
  };
#define WS_FUZZ_ROW(name) {#name, ws_fuzz_##name},
  const Target targets[] = {WS_FUZZ_LIST(WS_FUZZ_ROW)};
  int missing = 0;
  for (const Target& t : targets) {
    const fs::path dir = fs::path(argv[1]) / t.name;
    size_t n = 0;
    if (fs::is_directory(dir))
      for (const auto& e : fs::directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        std::ifstream f(e.path(), std::ios::binary);
        std::stringstream s;
        s << f.rdbuf();
        const std::string bytes = s.str();
        t.run(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
        ++n;
      }
    std::printf("%-10s %zu inputs\n", t.name, n);
    if (n == 0) ++missing;
  }
  return missing ? 1 : 0;
}
