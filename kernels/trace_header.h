// kernels/trace_header.h — the head of the trace of one catalog launch, as every backend
// (emulator, GPU record, GPU counts) starts it.
//
// Beside the catalog rather than in src/trace: it reads the catalog (the entry's arrays
// and its embedded source), and the trace layer depends on nothing. Header-only and
// included by the backends alone, which depend on kernels + trace; the catalog library and
// the kernel bodies stay free of the trace.
#pragma once
#include <string>

#include "catalog.h"
#include "trace/trace.h"

namespace ws::catalog {

// A trace holding the launch's kernel, parameters, backend and device, the kernel file's
// text, and the global arrays (buffer ids 0..n-1 in KernelInfo::buffers order). The
// backend adds the grid, the shared arrays, the sites and the records.
inline trace::Trace trace_header(const KernelInfo& k, const Params& p, const std::string& backend,
                                 const std::string& device) {
  trace::Trace t;
  t.launch.kernel = k.id;
  t.launch.params = p.values;
  t.launch.backend = backend;
  t.launch.device = device;
  t.source_name = k.source_file;
  t.source = source(k.source_file);
  for (const auto& s : k.buffers(p)) {
    trace::Buffer b;
    b.name = s.name;
    b.space = trace::Space::Global;
    b.elem_bytes = s.elem_bytes;
    b.rows = s.rows;
    b.cols = s.cols;
    b.col_major = s.col_major;
    b.size_bytes = s.elements() * s.elem_bytes;
    t.buffers.push_back(b);
  }
  return t;
}

}  // namespace ws::catalog
