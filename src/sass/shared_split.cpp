// src/sass/shared_split.cpp — a GPU trace's shared window cut into the arrays the kernel
// declares. The tracer sees only addresses in the block's shared window; ptxas places the
// arrays in it without saying where. The layout is recovered from the trace itself: a source
// line that names one shared array tells which window offsets that array covers, and the one
// packing of the declared arrays that agrees with every such line is the layout. Where no
// packing or more than one agrees, the window stays whole (never a guessed name).
#include <algorithm>
#include <bit>
#include <cctype>
#include <map>
#include <memory>
#include <set>

#include "sass/import.h"
#include "ptx/ptx.h"

namespace ws::sass {

namespace {

// Whether `name` appears in `code` as a whole identifier.
bool names(const std::string& code, const std::string& name) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = code.find(name); at != std::string::npos; at = code.find(name, at + 1)) {
    const bool left = at == 0 || !ident(code[at - 1]);
    const bool right = at + name.size() >= code.size() || !ident(code[at + name.size()]);
    if (left && right) return true;
  }
  return false;
}

// What a line that names exactly one array shows: the window bytes it touched.
struct Evidence {
  size_t array;
  uint64_t lo, hi;  // [lo, hi)
};

// The array starts of one packing: `order` placed one after another, each at its alignment.
std::vector<uint64_t> pack(const std::vector<SharedDecl>& d, const std::vector<size_t>& order) {
  std::vector<uint64_t> start(d.size());
  uint64_t at = 0;
  for (size_t i : order) {
    const uint64_t a = std::max<uint32_t>(1, d[i].align);
    at = (at + a - 1) / a * a;
    start[i] = at;
    at += d[i].bytes;
  }
  return start;
}

// The one packing every piece of evidence agrees with, or empty.
std::vector<uint64_t> layout(const std::vector<SharedDecl>& d, const std::vector<Evidence>& ev, uint64_t window) {
  std::vector<size_t> order(d.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::set<std::vector<uint64_t>> agree;
  do {
    std::vector<uint64_t> s = pack(d, order);
    const uint64_t end = s[order.back()] + d[order.back()].bytes;
    if (end < window) continue;
    const bool fits = std::all_of(ev.begin(), ev.end(), [&](const Evidence& e) {
      return e.lo >= s[e.array] && e.hi <= s[e.array] + d[e.array].bytes;
    });
    if (fits) agree.insert(std::move(s));
  } while (std::next_permutation(order.begin(), order.end()) && agree.size() < 2);
  return agree.size() == 1 ? *agree.begin() : std::vector<uint64_t>{};
}

// The window buffer each kernel's records use, and the sites on it.
struct Window {
  uint32_t buffer = trace::kNoBuffer;
  std::set<uint32_t> sites;
  uint64_t bytes = 0;
};

// Splits one kernel's window; true when it was split.
bool split_one(trace::Trace& t, const Window& w, const std::vector<SharedDecl>& d, const std::string& prefix) {
  // Evidence, from every record of a site whose line names one array.
  std::map<uint32_t, size_t> only;  // site → the one array its line names
  for (uint32_t s : w.sites) {
    size_t hit = d.size(), count = 0;
    for (size_t i = 0; i < d.size(); ++i)
      if (names(t.sites[s].code, d[i].name)) hit = i, ++count;
    if (count == 1) only[s] = hit;
  }
  std::map<size_t, Evidence> span;
  for (const trace::Record& r : t.records) {
    auto o = only.find(r.site);
    if (o == only.end() || r.lanes) continue;
    const uint8_t bytes = t.sites[r.site].bytes;
    for (int lane = 0; lane < trace::kWarpSize; ++lane) {
      if (!r.lane_active(lane)) continue;
      const uint64_t lo = r.offset[size_t(lane)];
      auto [it, fresh] = span.try_emplace(o->second, Evidence{o->second, lo, lo + bytes});
      it->second.lo = std::min(it->second.lo, lo);
      it->second.hi = std::max(it->second.hi, lo + bytes);
    }
  }
  if (span.size() < d.size() - 1) return false;  // too little to tell the packings apart
  std::vector<Evidence> ev;
  for (auto& [i, e] : span) ev.push_back(e);
  const std::vector<uint64_t> start = layout(d, ev, w.bytes);
  if (start.empty()) return false;

  // The window's index becomes the first array; the others are appended.
  std::vector<uint32_t> index(d.size());
  for (size_t i = 0; i < d.size(); ++i) {
    trace::Buffer b = t.buffers[w.buffer];
    b.name = prefix + d[i].name;  // as the window of one array is named: "transposeTiled::tile"
    b.elem_bytes = d[i].elem_bytes;
    b.rows = d[i].rows;
    b.cols = d[i].cols;
    b.size_bytes = d[i].bytes;
    b.pitch = 0;
    if (i == 0) {
      t.buffers[w.buffer] = b;
      index[i] = w.buffer;
    } else {
      index[i] = uint32_t(t.buffers.size());
      t.buffers.push_back(b);
    }
  }
  auto array_of = [&](uint64_t off) {
    for (size_t i = 0; i < d.size(); ++i)
      if (off >= start[i] && off < start[i] + d[i].bytes) return i;
    return d.size();
  };
  // Each lane moved to its array; a site keeps one array when all its lanes have one.
  std::map<uint32_t, std::set<uint32_t>> site_arrays;
  for (trace::Record& r : t.records) {
    if (!w.sites.count(r.site) || r.lanes) continue;
    trace::LaneBuffers lanes;
    lanes.fill(index[0]);
    std::set<uint32_t> used;
    for (int lane = 0; lane < trace::kWarpSize; ++lane) {
      if (!r.lane_active(lane)) continue;
      const size_t a = array_of(r.offset[size_t(lane)]);
      if (a == d.size()) continue;  // past every array: left in the first, as the window had it
      lanes[size_t(lane)] = index[a];
      r.offset[size_t(lane)] -= uint32_t(start[a]);
      used.insert(index[a]);
    }
    if (r.active) r.buffer = lanes[size_t(std::countr_zero(r.active))];  // the first active lane's, as Record says
    if (used.empty()) used.insert(r.buffer);
    if (used.size() > 1) r.lanes = std::make_shared<const trace::LaneBuffers>(lanes);
    site_arrays[r.site].insert(used.begin(), used.end());
  }
  for (auto& [s, arrays] : site_arrays) t.sites[s].buffer = arrays.size() == 1 ? *arrays.begin() : trace::kNoBuffer;
  return true;
}

}  // namespace

void split_shared_windows(trace::Trace& t, const SharedDecls& decls) {
  std::map<std::string, Window> windows;  // by kernel
  for (const trace::Record& r : t.records) {
    const trace::Site& s = t.sites[r.site];
    if (s.space != trace::Space::Shared || r.launch >= t.launches.size()) continue;
    Window& w = windows[t.launches[r.launch].kernel];
    if (w.buffer == trace::kNoBuffer) w.buffer = r.buffer;
    if (r.buffer != w.buffer || r.lanes) continue;
    w.sites.insert(r.site);
    for (int lane = 0; lane < trace::kWarpSize; ++lane)
      if (r.lane_active(lane)) w.bytes = std::max<uint64_t>(w.bytes, r.offset[size_t(lane)] + s.bytes);
  }
  std::set<uint32_t> done;  // a window several launches of one kernel share is cut once
  for (auto& [kernel, w] : windows) {
    auto d = decls.find(kernel);
    if (d == decls.end()) d = decls.find(kernel.substr(0, kernel.find('<')));
    if (d == decls.end() || d->second.size() < 2 || d->second.size() > 6 || done.count(w.buffer)) continue;
    const bool sized = std::all_of(d->second.begin(), d->second.end(), [](const SharedDecl& x) { return x.bytes > 0; });
    if (sized && split_one(t, w, d->second, kernel.substr(0, kernel.find('<')) + "::")) done.insert(w.buffer);
  }
}

SharedDecls ptx_shared_decls(const std::string& ptx) {
  SharedDecls out;
  const ptx::Module m = ptx::parse_declarations(ptx);
  const SharedNames names = ptx_shared_names(ptx);
  for (const ptx::Kernel& k : m.kernels) {
    auto n = names.find(k.name);
    if (n == names.end() || n->second.size() != k.shared.size()) continue;
    std::vector<SharedDecl>& d = out[plain_name(k.name)];
    for (size_t i = 0; i < k.shared.size(); ++i) {
      const ptx::Variable& v = k.shared[i];
      d.push_back({n->second[i], v.bytes, v.align, 4, 1, std::max<uint64_t>(1, v.bytes / 4)});
    }
  }
  return out;
}

SharedDecls trace_shared_decls(const trace::Trace& t) {
  std::map<std::string, std::set<uint32_t>> used;  // kernel → shared arrays its records reach
  for (const trace::Record& r : t.records) {
    const trace::Site& s = t.sites[r.site];
    if (s.space != trace::Space::Shared || r.launch >= t.launches.size()) continue;
    auto& u = used[t.launches[r.launch].kernel];
    for (int lane = 0; lane < trace::kWarpSize; ++lane)
      if (r.lane_active(lane)) u.insert(r.buffer_of(lane));
  }
  SharedDecls out;
  for (auto& [kernel, arrays] : used)
    for (uint32_t b : arrays) {
      if (b >= t.buffers.size()) continue;
      const trace::Buffer& x = t.buffers[b];
      // Alignment: the element's width, as nvcc declares a shared array of that type.
      const uint32_t align = std::min<uint32_t>(16, std::bit_ceil(std::max<uint32_t>(1, x.elem_bytes)));
      // "matmulTiled::As" → "As": the name the source writes.
      const size_t colon = x.name.rfind("::");
      const std::string name = colon == std::string::npos ? x.name : x.name.substr(colon + 2);
      out[kernel].push_back({name, x.size_bytes, align, x.elem_bytes, x.rows, x.cols});
    }
  return out;
}

}  // namespace ws::sass
