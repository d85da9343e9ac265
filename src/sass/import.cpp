// src/sass/import.cpp — a GPU tracer's file made into a trace (import.h), with nvdisasm's
// listing parsed for opcodes and lines and the PTX read for each kernel's shared arrays.
#include "sass/import.h"

#include <cxxabi.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <regex>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "ptx/machine.h"
#include "ptx/ptx.h"
#include "trace/builder.h"
#include "trace/toolkit.h"

namespace ws::sass {

namespace {

struct Reader {
  const std::string& s;
  size_t at = 0;
  bool has(uint64_t n) const { return at <= s.size() && n <= s.size() - at; }  // no wrap-around for a huge n
  template <class T>
  T get() {
    T v{};
    std::memcpy(&v, s.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
};

}  // namespace

RawCapture read_raw(const std::string& bytes) {
  RawCapture out;
  Reader r{bytes};
  std::unordered_map<uint64_t, size_t> latest_alloc;  // address: its last allocation in out.allocs
  if (bytes.size() < 16 || std::memcmp(bytes.data(), kRawMagic, sizeof kRawMagic) != 0)
    throw std::runtime_error("not a warpscope GPU trace (no WSGPUTR header)");
  r.at = 8;
  const uint32_t version = r.get<uint32_t>();
  r.get<uint32_t>();
  if (version != kRawVersion)
    throw std::runtime_error("GPU trace version " + std::to_string(version) + ", this warpscope reads " +
                             std::to_string(kRawVersion));
  while (r.has(16)) {
    const uint32_t type = r.get<uint32_t>();
    r.get<uint32_t>();
    const uint64_t n = r.get<uint64_t>();
    if (!r.has(n)) break;  // cut short (the program died mid-write): keep what is whole
    const size_t end = r.at + n;
    switch (ChunkType(type)) {
      case ChunkType::Module: {
        if (n < 8) break;
        RawModule m;
        m.id = r.get<uint64_t>();
        m.cubin.assign(bytes.data() + r.at, end - r.at);
        out.modules.push_back(std::move(m));
        break;
      }
      case ChunkType::Alloc: {
        if (n < 24) break;
        RawAlloc a;
        a.address = r.get<uint64_t>();
        a.size = r.get<uint64_t>();
        a.module_data = r.get<uint64_t>() & kAllocModule;
        latest_alloc[a.address] = out.allocs.size();
        out.allocs.push_back(a);
        break;
      }
      case ChunkType::ProgramAlloc: {
        if (n < 8) break;
        const uint64_t address = r.get<uint64_t>();
        std::string name;
        for (uint64_t i = 8; i < n; ++i) {
          const char c = r.get<char>();
          if (c) name += c;
          else break;
        }
        // The latest allocation at that address (a map, not a scan: a file of many
        // allocations and names would otherwise take time squared in their number).
        if (auto at = latest_alloc.find(address); at != latest_alloc.end()) {
          out.allocs[at->second].by_program = true;
          out.allocs[at->second].name = name;
        }
        break;
      }
      case ChunkType::Launch: {
        if (n < sizeof(LaunchHead)) break;
        RawLaunch l;
        l.head = r.get<LaunchHead>();
        const size_t name_room = (size_t(l.head.name_bytes) + 7) / 8 * 8;
        // In counts, not bytes: a huge count must not wrap the product around.
        if (name_room > end - r.at || uint64_t(l.head.kept) > (end - r.at - name_room) / sizeof(DeviceRecord)) break;
        l.name.assign(bytes.data() + r.at, l.head.name_bytes);
        r.at += name_room;
        l.records.resize(l.head.kept);
        if (l.head.kept) std::memcpy(l.records.data(), bytes.data() + r.at, l.head.kept * sizeof(DeviceRecord));
        l.allocs_before = out.allocs.size();
        out.launches.push_back(std::move(l));
        break;
      }
      case ChunkType::WarpCounts: {
        if (n < 8 || out.launches.empty()) break;
        RawLaunch& l = out.launches.back();
        l.warps_per_block = r.get<uint32_t>();
        const uint32_t warps = r.get<uint32_t>();
        if (uint64_t(warps) * 4 > n - 8 || !l.warps_per_block) break;
        l.executed_per_warp.resize(warps);
        if (warps) std::memcpy(l.executed_per_warp.data(), bytes.data() + r.at, size_t(warps) * 4);
        break;
      }
      case ChunkType::LaunchNote: {
        if (n < sizeof(LaunchNoteChunk) || out.launches.empty()) break;
        const auto note = r.get<LaunchNoteChunk>();
        out.launches.back().spaces = note.spaces & (kRawSpaceGlobal | kRawSpaceShared);
        out.launches.back().unrecorded = note.unrecorded != 0;
        break;
      }
      default: break;  // a later version's chunk: skipped
    }
    r.at = end;
  }
  return out;
}

namespace {

// A line number from a listing's "file:LINE": digits only, 0 when it does not fit 32 bits.
uint32_t line_number(const std::string& digits) {
  uint64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return 0;
    v = v * 10 + uint64_t(c - '0');
    if (v > 0xffffffffu) return 0;
  }
  return uint32_t(v);
}


using trace::toolkit_file;

// A launch cut short by the record cap keeps its records in the order the GPU wrote them,
// many blocks part way through: only the blocks whose every warp kept every instruction
// stay (their per-warp counts say which), so that a block's figures are the whole block's.
// Unchanged when nothing was dropped, the counts are missing, or no block is whole.
RawLaunch whole_blocks_only(const RawLaunch& L) {
  if (L.head.kept >= L.head.executed || L.executed_per_warp.empty() || !L.warps_per_block) return L;
  std::vector<uint32_t> kept(L.executed_per_warp.size(), 0);
  for (const DeviceRecord& r : L.records) {
    const uint64_t w = uint64_t(r.block - L.head.block_lo) * L.warps_per_block + r.warp;
    if (r.block >= L.head.block_lo && w < kept.size()) ++kept[w];
  }
  std::vector<bool> whole(L.head.block_hi - L.head.block_lo, false);
  bool any = false;
  for (size_t blk = 0; blk < whole.size(); ++blk) {
    bool ok = false;  // a block with records, every warp complete
    for (uint32_t w = 0; w < L.warps_per_block; ++w) {
      const size_t i = blk * L.warps_per_block + w;
      if (i >= kept.size() || kept[i] != L.executed_per_warp[i]) {
        ok = false;
        break;
      }
      ok = ok || kept[i] > 0;
    }
    whole[blk] = ok;
    any = any || ok;
  }
  if (!any) return L;
  RawLaunch out = L;
  out.records.clear();
  for (const DeviceRecord& r : L.records)
    if (r.block >= L.head.block_lo && r.block - L.head.block_lo < whole.size() && whole[r.block - L.head.block_lo])
      out.records.push_back(r);
  out.head.kept = out.records.size();
  return out;
}

// Atomics: the Sanitizer API flags an atomic that returns nothing (RED) as a write, one
// that does (ATOM) as a read and a write; the opcode says which it is.
bool atomic_opcode(const std::string& op) {
  return op.rfind("ATOM", 0) == 0 || op.rfind("RED", 0) == 0;
}

}  // namespace

Disassembly parse_disassembly(const std::string& text, const std::vector<std::string>& see_through) {
  Disassembly out;
  auto toolkit_file = [&](const std::string& f) {
    if (trace::toolkit_file(f)) return true;
    for (const std::string& s : see_through)
      if (f.find(s) != std::string::npos) return true;
    return false;
  };
  static const std::regex section(R"(^\s*\.section\s+\.text\.([^,\s]+))");
  static const std::regex label(R"(^\.text\.([^:\s]+):\s*$)");
  static const std::regex function(R"(^\s*Function\s*:\s*(\S+))");
  static const std::regex where(R"re(//##\s*File\s*"([^"]*)",\s*line\s*(\d+))re");
  static const std::regex inlined(R"re(inlined at\s*"([^"]*)",\s*line\s*(\d+))re");
  static const std::regex insn(R"(^\s*/\*([0-9a-fA-F]{4,})\*/\s+(.*?)\s*;)");
  std::string fn, file, program_file;
  uint32_t line = 0, program_line = 0;
  // nvdisasm -gi writes a location as a block of `//##` lines, the innermost frame first and
  // each outer one below it; `chain` is true inside such a block, `resolved` once a frame of
  // the program's own code was found in it (the outer frames then change nothing).
  bool chain = false, resolved = false;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_search(l, m, section) || std::regex_search(l, m, label) || std::regex_search(l, m, function)) {
      if (m[1].str() != fn) file.clear(), line = 0, program_file.clear(), program_line = 0;
      fn = m[1].str();
      continue;
    }
    if (std::regex_search(l, m, where)) {
      if (chain && resolved) continue;  // an outer frame of a location already placed
      chain = true;
      file = m[1].str();
      line = line_number(m[2].str());
      // Code inlined from the toolkit's headers (atomicAdd, __shfl_down_sync) belongs to the
      // program's line that called it, as the PTX path places it: the `inlined at` chain
      // (nvdisasm -gi), else the program's line met last in this function.
      for (auto it = std::sregex_iterator(l.begin(), l.end(), inlined); it != std::sregex_iterator() && toolkit_file(file); ++it) {
        file = (*it)[1].str();
        line = line_number((*it)[2].str());
      }
      resolved = !toolkit_file(file);
      if (resolved) program_file = file, program_line = line;
      continue;
    }
    if (fn.empty() || !std::regex_search(l, m, insn)) continue;
    if (chain && !resolved && !program_file.empty()) file = program_file, line = program_line;
    chain = false;
    SassInstruction s;
    s.text = m[2].str();
    std::istringstream words(s.text);
    std::string w;
    words >> w;
    if (!w.empty() && w[0] == '@') words >> w;  // a predicate: @P0, @!PT
    // "{" opens a dual-issue pair on older chips: the opcode follows it.
    if (w == "{") words >> w;
    s.opcode = w;
    s.file = file;
    s.line = line;
    out[fn][std::strtoull(m[1].str().c_str(), nullptr, 16)] = std::move(s);
  }
  return out;
}

SharedNames ptx_shared_names(const std::string& ptx) {
  // "_ZZ14transposeTiled…E4tile" → "tile": the last part of its demangled name.
  auto plain = [](const std::string& name) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
    std::string s = status == 0 && d ? std::string(d.get()) : name;
    const size_t colon = s.rfind("::");
    return colon == std::string::npos ? s : s.substr(colon + 2);
  };
  SharedNames out;
  const ptx::Module m = ptx::parse_declarations(ptx);
  for (const ptx::Kernel& k : m.kernels) {
    auto& names = out[k.name];
    for (const ptx::Variable& v : k.shared) names.push_back(plain(v.name));
  }
  // Declared outside any kernel (module scope, or in a device function): under "".
  for (const ptx::Variable& v : m.globals)
    if (v.space == ptx::Space::Shared) out[""].push_back(plain(v.name));
  for (const ptx::Kernel& f : m.functions)
    for (const ptx::Variable& v : f.shared) out[""].push_back(plain(v.name));
  return out;
}

std::string plain_name(const std::string& mangled) { return ptx::kernel_name(mangled); }

namespace {

// The system's part of the shared window on sm_80 and later.
constexpr uint64_t kReservedShared = 1024;

std::string fallback_instruction(const DeviceRecord& r) {
  std::string s = r.space == kRawShared ? "shared " : "global ";
  s += (r.flags & kRawAtomic) ? "atomic" : (r.flags & kRawWrite) ? "store" : "load";
  return s + " " + std::to_string(r.size) + " B";
}

// A GPU capture made into a trace, one step per seam: the program's allocations become
// arrays, each launch its blocks, shared window and records, each SASS instruction (per
// array it reaches) a site.
class TraceImport {
 public:
  TraceImport(trace::Trace& t, const ImportOptions& o) : t_(t), o_(o), b_(t, o.max_records) {}

  // The program's allocations (not the modules' own data), named in the order it made
  // them; each becomes a 1-D array of 4-byte elements.
  void allocations(const std::vector<RawAlloc>& allocs) {
    // The names go to the program's own allocations (where the tracer saw its cudaMalloc*
    // calls; else to every allocation not of a module).
    const bool marked = std::any_of(allocs.begin(), allocs.end(), [](const RawAlloc& a) { return a.by_program; });
    size_t k = 0, module_k = 0, other_k = 0;
    for (const RawAlloc& a : allocs) {
      trace::Buffer buf;
      if (a.module_data) {
        buf.name = "__device__ data" + (module_k++ ? " " + std::to_string(module_k) : std::string());
      } else if (marked && !a.by_program) {
        buf.name = "runtime allocation " + std::to_string(++other_k);
      } else {
        // The name the line of its call gives it; else the k-th name of the text's calls.
        buf.name = !a.name.empty() && !o_.names_given ? a.name
                   : k < o_.names.size()              ? o_.names[k]
                                                      : "allocation " + std::to_string(k + 1);
        ++k;
      }
      buf.space = trace::Space::Global;
      buf.elem_bytes = 4;
      buf.rows = 1;
      buf.cols = std::max<uint64_t>(1, a.size / 4);
      buf.size_bytes = a.size;
      regions_.push_back({a.address, a.size, b_.add_buffer(buf)});
    }
    std::sort(regions_.begin(), regions_.end(), [](const Region& x, const Region& y) { return x.base < y.base; });
  }

  // One traced launch: its blocks, its shared window, its records in the emulated device's
  // order, their sites named from its function's disassembly where there is one.
  void launch(const RawLaunch& whole, const std::map<uint64_t, Disassembly>& disassembly) {
    const RawLaunch L = whole_blocks_only(whole);
    const std::string kernel = begin(L, whole);
    const std::map<uint64_t, SassInstruction>* dis = nullptr;
    if (auto m = disassembly.find(L.head.module); m != disassembly.end())
      if (auto f = m->second.find(L.name); f != m->second.end()) dis = &f->second;
    const Window shared = shared_window(L, kernel);
    std::unordered_map<uint64_t, uint32_t> seq;  // per (block, warp)
    uint64_t lanes_total = 0;
    // The GPU wrote the records as its warps ran, interleaved; the trace keeps them as the
    // emulated device does: block by block, barrier epoch by epoch, warp by warp, each
    // warp's in program order.
    std::vector<uint32_t> order(L.records.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
      const DeviceRecord &p = L.records[x], &q = L.records[y];
      return std::tie(p.block, p.epoch, p.warp) < std::tie(q.block, q.epoch, q.warp);
    });
    for (const uint32_t index : order) {
      DeviceRecord r = L.records[index];
      // ldmatrix .x1/.x2 take their rows from the first 8/16 lanes only.
      if (r.form == kRawMatrix && r.count && r.count < 4) r.mask &= (1u << (8 * r.count)) - 1u;
      if (!r.mask) continue;
      const uint32_t s = seq[(uint64_t(r.block) << 32) | r.warp]++;
      if (r.form == kRawCommit || r.form == kRawWait) {
        event(L, r, s, dis, kernel);
        continue;
      }
      lanes_total += uint64_t(std::popcount(r.mask));
      record(L, r, s, shared, dis, kernel);
    }
    b_.launch().lane_accesses = lanes_total;
    b_.launch().seconds = double(L.head.nanoseconds) * 1e-9;
  }

  void finish() {
    if (t_.files.empty()) b_.add_file("(no kernels were traced)", "");
  }

 private:
  struct Region {
    uint64_t base, size;
    uint32_t buffer;
  };
  // A kernel's shared window: its array, and where the kernel's own part starts.
  struct Window {
    uint32_t buffer = trace::kNoBuffer;
    uint64_t base = 0;
  };

  // The launch's head (its blocks: those the tracer kept whole); returns the kernel's name.
  std::string begin(const RawLaunch& L, const RawLaunch& whole) {
    trace::Launch launch;
    launch.kernel = plain_name(L.name);
    launch.grid = {L.head.grid[0], L.head.grid[1], L.head.grid[2]};
    launch.block = {L.head.block[0], L.head.block[1], L.head.block[2]};
    if (L.unrecorded) {
      // Run plainly past its kernel's recorded launches: its shape and time, no blocks.
      launch.recorded = false;
      const std::string kernel = launch.kernel;
      b_.begin_launch(launch);
      return kernel;
    }
    if (!(L.spaces & kRawSpaceGlobal)) launch.unrecorded_spaces.push_back(trace::Space::Global);
    if (!(L.spaces & kRawSpaceShared)) launch.unrecorded_spaces.push_back(trace::Space::Shared);
    if (L.executed_per_warp.empty() || L.head.kept == whole.head.kept)
      for (uint32_t blk = L.head.block_lo; blk < L.head.block_hi; ++blk) launch.blocks.push_back(blk);
    else
      for (const DeviceRecord& r : L.records)
        if (launch.blocks.empty() || launch.blocks.back() != r.block) launch.blocks.push_back(r.block);
    std::sort(launch.blocks.begin(), launch.blocks.end());
    launch.blocks.erase(std::unique(launch.blocks.begin(), launch.blocks.end()), launch.blocks.end());
    const std::string kernel = launch.kernel;
    b_.begin_launch(launch);
    b_.drop(L.head.executed - std::min<uint64_t>(L.head.executed, L.head.kept));
    return kernel;
  }

  // The kernel's shared window, as far as its lanes reach. From sm_80 on the window's first
  // kilobyte is the system's (the driver's reserved shared memory): the kernel's own
  // arrays start after it, and offsets are counted from there (banks are unchanged).
  Window shared_window(const RawLaunch& L, const std::string& kernel) {
    uint64_t bytes = 0, low = ~uint64_t(0);
    for (const DeviceRecord& r : L.records)
      if (r.space == kRawShared)
        for (int lane = 0; lane < 32; ++lane)
          if ((r.mask >> lane) & 1u) {
            bytes = std::max<uint64_t>(bytes, r.address[lane] + r.size);
            low = std::min<uint64_t>(low, r.address[lane]);
          }
    Window w;
    w.base = low != ~uint64_t(0) && low >= kReservedShared ? kReservedShared : 0;
    bytes -= std::min(bytes, w.base);
    if (!bytes) return w;
    auto it = shared_of_.find(L.name);
    if (it != shared_of_.end() && t_.buffers[it->second].size_bytes >= bytes) {
      w.buffer = it->second;
      return w;
    }
    const uint64_t words = (bytes + 3) / 4;
    w.buffer = b_.add_shared(shared_name(L.name, kernel), 4, 1, words, words * 4);
    shared_of_[L.name] = w.buffer;
    return w;
  }

  // Named after the kernel's one shared array (its PTX says which); several share the
  // window under the kernel's name, the arrays listed.
  std::string shared_name(const std::string& mangled, const std::string& kernel) const {
    const std::string base = kernel.substr(0, kernel.find('<'));
    std::string name = base + "::shared";
    auto v = o_.shared.find(mangled);
    if (v == o_.shared.end() || v->second.empty()) v = o_.shared.find("");  // declared outside the kernels
    if (v == o_.shared.end() || v->second.empty()) return name;
    if (v->second.size() == 1) return base + "::" + v->second[0];
    name += " (";
    for (size_t i = 0; i < v->second.size(); ++i) name += (i ? ", " : "") + v->second[i];
    return name + ")";
  }

  // One warp's access: each lane's address placed in its array, the record added.
  void record(const RawLaunch& L, const DeviceRecord& r, uint32_t seq, const Window& shared,
              const std::map<uint64_t, SassInstruction>* dis, const std::string& kernel) {
    trace::WarpAccess a;
    a.block = r.block;
    a.warp = r.warp;
    a.epoch = r.epoch;
    a.seq = seq;
    a.active = r.mask;
    std::array<uint32_t, 32> offset{};
    trace::LaneBuffers lanes{};
    bool mixed = false;
    uint32_t first = trace::kNoBuffer;
    for (int lane = 0; lane < 32; ++lane) {
      if (!((r.mask >> lane) & 1u)) continue;
      uint32_t buf;
      if (r.space == kRawShared) {
        buf = shared.buffer;
        offset[size_t(lane)] = uint32_t(r.address[lane] - shared.base);
      } else {
        buf = region_of(r.address[lane], offset[size_t(lane)]);
      }
      lanes[size_t(lane)] = buf;
      if (first == trace::kNoBuffer) first = buf;
      else if (buf != first) mixed = true;
    }
    a.buffer = first;
    a.lanes = mixed ? &lanes : nullptr;
    a.offset = offset.data();
    a.site = site(L, r, mixed ? trace::kNoBuffer : first, dis, kernel);
    b_.add(a);
  }

  // A commit or a wait of async copies: an event of the launch, at the warp's position.
  void event(const RawLaunch& L, const DeviceRecord& r, uint32_t seq, const std::map<uint64_t, SassInstruction>* dis,
             const std::string& kernel) {
    const uint64_t off = r.pc - L.head.function_pc;
    auto key = std::make_tuple(L.name, off, trace::kNoBuffer);
    auto it = event_site_of_.find(key);
    if (it == event_site_of_.end()) {
      trace::Site s;
      s.form = r.form == kRawCommit ? trace::Form::Commit : trace::Form::Wait;
      s.bytes = 1;
      name_site(s, off, dis, kernel, r.form == kRawCommit ? "commit" : "wait");
      it = event_site_of_.emplace(key, uint32_t(t_.event_sites.size())).first;
      t_.event_sites.push_back(s);
    }
    trace::Event e;
    e.launch = b_.launch_index();
    e.block = r.block;
    e.warp = r.warp;
    e.site = it->second;
    e.seq = seq;
    e.epoch = r.epoch;
    e.active = r.mask;
    e.arg = r.form == kRawWait ? r.flags : 0;
    t_.events.push_back(e);
  }

  // A site's instruction and line from the disassembly at SASS offset `off`.
  void name_site(trace::Site& s, uint64_t off, const std::map<uint64_t, SassInstruction>* dis, const std::string& kernel,
                 const std::string& fallback) {
    const SassInstruction* in = nullptr;
    if (dis)
      if (auto f = dis->find(off); f != dis->end()) in = &f->second;
    s.instruction = in ? in->opcode : fallback;
    if (in && !in->file.empty()) {
      s.file = file_of(in->file);
      s.line = in->line;
    } else {
      s.file = file_of(kernel + " (no line information: build with -lineinfo)");
      s.line = 0;
    }
  }

  // The site: this SASS instruction of this kernel, on this array (a kernel launched on
  // other arrays gets sites of its own, as the emulated device gives it).
  uint32_t site(const RawLaunch& L, const DeviceRecord& r, uint32_t buffer,
                const std::map<uint64_t, SassInstruction>* dis, const std::string& kernel) {
    const uint64_t off = r.pc - L.head.function_pc;
    auto key = std::make_tuple(L.name, off, buffer);
    auto it = site_of_.find(key);
    if (it != site_of_.end()) return it->second;
    trace::Site s;
    const SassInstruction* in = nullptr;
    if (dis)
      if (auto f = dis->find(off); f != dis->end()) in = &f->second;
    s.space = r.space == kRawShared ? trace::Space::Shared : trace::Space::Global;
    const bool atomic = (r.flags & kRawAtomic) || (in && atomic_opcode(in->opcode)) ||
                        ((r.flags & kRawRead) && (r.flags & kRawWrite));
    s.op = atomic ? trace::Op::Atomic : (r.flags & kRawWrite) ? trace::Op::Store : trace::Op::Load;
    s.bytes = r.size;
    s.buffer = buffer;
    s.form = r.form == kRawMatrix       ? trace::Form::Matrix
             : r.form == kRawAsyncRead  ? trace::Form::AsyncRead
             : r.form == kRawAsyncWrite ? trace::Form::AsyncWrite
                                        : trace::Form::Plain;
    name_site(s, off, dis, kernel, fallback_instruction(r));
    const uint32_t index = site_of_.emplace(key, b_.add_site(s)).first->second;
    // An async copy's two halves are one instruction: pair the sites of its pc.
    if (s.form == trace::Form::AsyncRead || s.form == trace::Form::AsyncWrite) {
      auto& pair = async_of_.try_emplace(std::make_tuple(L.name, off), trace::kNoSite, trace::kNoSite).first->second;
      (s.form == trace::Form::AsyncRead ? pair.first : pair.second) = index;
      if (pair.first != trace::kNoSite && pair.second != trace::kNoSite) {
        t_.sites[pair.first].partner = pair.second;
        t_.sites[pair.second].partner = pair.first;
      }
    }
    return index;
  }

  // The array that holds `addr` and the offset in it; an address in none goes to one array
  // of memory outside the program's allocations.
  uint32_t region_of(uint64_t addr, uint32_t& offset) {
    auto it = std::upper_bound(regions_.begin(), regions_.end(), addr, [](uint64_t a, const Region& r) { return a < r.base; });
    if (it != regions_.begin() && addr < std::prev(it)->base + std::prev(it)->size) {
      offset = uint32_t(addr - std::prev(it)->base);
      return std::prev(it)->buffer;
    }
    if (unknown_ == trace::kNoBuffer) {
      trace::Buffer u;
      u.name = "memory outside the program's allocations";
      u.cols = 1;
      unknown_ = b_.add_buffer(u);
    }
    offset = uint32_t(addr & 0xffffffffu);
    return unknown_;
  }

  uint32_t file_of(const std::string& name) {
    auto it = files_.find(name);
    if (it != files_.end()) return it->second;
    return files_[name] = b_.add_file(name, "");
  }

  trace::Trace& t_;
  const ImportOptions& o_;
  trace::Builder b_;
  std::vector<Region> regions_;
  uint32_t unknown_ = trace::kNoBuffer;
  std::unordered_map<std::string, uint32_t> files_;
  std::map<std::tuple<std::string, uint64_t, uint32_t>, uint32_t> site_of_;  // (function, SASS offset, array)
  std::map<std::string, uint32_t> shared_of_;                                // a kernel's shared window
  std::map<std::tuple<std::string, uint64_t, uint32_t>, uint32_t> event_site_of_;  // into Trace::event_sites
  std::map<std::tuple<std::string, uint64_t>, std::pair<uint32_t, uint32_t>> async_of_;  // (read, write) sites of an LDGSTS

};

}  // namespace

trace::Trace to_trace(const RawCapture& raw, const std::map<uint64_t, Disassembly>& disassembly,
                      const ImportOptions& o) {
  trace::Trace t;
  t.provenance.backend = "gpu";
  t.provenance.device = o.device.empty() ? "a GPU" : o.device;
  t.provenance.date = trace::utc_now();
  TraceImport import(t, o);
  import.allocations(raw.allocs);
  for (const RawLaunch& whole : raw.launches) import.launch(whole, disassembly);
  import.finish();
  return t;
}

}  // namespace ws::sass
