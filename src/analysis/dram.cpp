// src/analysis/dram.cpp — the DRAM teaching model: byte address -> (channel, bank) by
// interleaving bursts over channels, then banks, with an optional XOR hash. Real address
// maps are undocumented; this is a model and says so.
#include <sstream>

#include "analysis/analysis.h"

namespace ws::analysis {
namespace {

bool pow2(uint64_t v) { return v && !(v & (v - 1)); }

uint32_t hashed(uint32_t ch, uint64_t h, uint32_t channels) {
  return pow2(channels) ? uint32_t(ch ^ h) : uint32_t((ch + h) % channels);
}

}  // namespace

uint32_t DramModel::channel(uint64_t addr) const {
  uint64_t c = channels ? channels : 1, b = banks ? banks : 1, g = addr / (burst_bytes ? burst_bytes : 1);
  uint32_t ch = uint32_t(g % c);
  if (xor_hash) ch = hashed(ch, (g / (c * b)) % c, uint32_t(c));
  return ch;
}

uint32_t DramModel::bank(uint64_t addr) const {
  uint64_t c = channels ? channels : 1, b = banks ? banks : 1, g = addr / (burst_bytes ? burst_bytes : 1);
  return uint32_t((g / c) % b);
}

std::string DramModel::describe() const {
  std::ostringstream o;
  o << "model \"" << preset << "\": " << channels << " channels x " << banks << " banks, "
    << burst_bytes << "-byte interleave" << (xor_hash ? ", XOR-hashed channels" : "");
  return o.str();
}

bool dram_preset(const std::string& name, DramModel& out) {
  DramModel m;
  m.preset = name;
  if (name == "textbook") {
    m.channels = 4;
    m.banks = 2;
    m.burst_bytes = 8;
    m.xor_hash = false;
  } else if (name == "hbm") {
    // HBM-like: 32 (pseudo-)channels, 16 banks each, 256-byte interleave, hashed so that
    // power-of-two strides do not all land in one channel. A model, not a datasheet.
    m.channels = 32;
    m.banks = 16;
    m.burst_bytes = 256;
    m.xor_hash = true;
  } else {
    return false;
  }
  out = m;
  return true;
}

std::vector<std::string> dram_presets() { return {"textbook", "hbm"}; }

}  // namespace ws::analysis
