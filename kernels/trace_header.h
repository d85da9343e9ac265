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

// A trace holding one launch (the kernel and its parameters), the backend and device, the
// kernel file's text as file 0, and the global arrays (buffer ids 0..n-1 in
// KernelInfo::buffers order). The backend adds the grid, the shared arrays, the sites and
// the records through a trace::Builder.
inline trace::Trace trace_header(const KernelInfo& k, const Params& p, const std::string& backend,
                                 const std::string& device) {
  trace::Trace t;
  trace::Launch& l = t.launches.emplace_back();
  l.kernel = k.id;
  l.params = p.values;
  t.provenance.backend = backend;
  t.provenance.device = device;
  t.files.push_back({k.source_file, source(k.source_file)});
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
