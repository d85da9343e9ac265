#include "trace/trace.h"

#include <ctime>

namespace ws::trace {

const char* to_string(Space s) { return s == Space::Global ? "global" : "shared"; }

const char* to_string(Op o) {
  switch (o) {
    case Op::Load: return "load";
    case Op::Store: return "store";
    case Op::Atomic: return "atomic";
  }
  return "?";
}

Dim3 Trace::block_coords(uint32_t linear) const {
  const Dim3& g = launch.grid;
  Dim3 c;
  c.x = linear % g.x;
  c.y = (linear / g.x) % g.y;
  c.z = linear / (g.x * g.y);
  return c;
}

std::string source_line(const std::string& text, uint32_t line) {
  size_t pos = 0;
  for (uint32_t l = 1; l < line; ++l) {
    pos = text.find('\n', pos);
    if (pos == std::string::npos) return {};
    ++pos;
  }
  size_t end = text.find('\n', pos);
  std::string s = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char s[32];
  std::strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return s;
}

Buffer shared_buffer(std::string name, uint32_t elem_bytes, uint64_t rows, uint64_t cols, uint64_t size_bytes) {
  Buffer b;
  b.name = std::move(name);
  b.space = Space::Shared;
  b.elem_bytes = elem_bytes;
  b.rows = rows;
  b.cols = cols;
  b.size_bytes = size_bytes;
  return b;
}

SiteTable::SiteTable(Trace& t) : t_(&t) {
  for (size_t i = 0; i < t.sites.size(); ++i) ids_.emplace(key_of(t.sites[i]), uint16_t(i));
}

uint16_t SiteTable::add(uint32_t key) {
  Site s;
  s.line = key_line(key);
  s.buffer = uint16_t(key_buffer(key));
  s.space = s.buffer < t_->buffers.size() ? t_->buffers[s.buffer].space : Space::Global;
  s.op = Op(key_op(key));
  s.bytes = uint8_t(key_bytes(key));
  s.code = source_line(t_->source, s.line);
  t_->sites.push_back(std::move(s));
  const uint16_t id = uint16_t(t_->sites.size() - 1);
  ids_.emplace(key, id);
  return id;
}

}  // namespace ws::trace
