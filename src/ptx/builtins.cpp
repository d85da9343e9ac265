// src/ptx/builtins.cpp — calls: a lane entering a device function linked into its kernel
// (arguments copied into its frame, where to return kept; a recursive call with registers,
// parameters and local frames of its own; a call through a pointer mapped back to its
// function), and the functions the device
// itself provides: printf (formatted as the GPU formats it, to the program's stdout),
// assert (a failed one ends the launch with the GPU's message), malloc and free.
#include <bit>
#include <cstdio>
#include <cstring>

#include "ptx/block_run.h"

namespace ws::ptx {

// One lane enters a device function: its arguments copied in, where to return kept (and,
// for a call that may re-enter a running function, the state the callee will overwrite).
void BlockRun::call(const Insn& in, uint32_t w, int l, uint32_t ret_pc) {
  uint32_t li = uint32_t(in.o[0].imm);
  const Kernel::Linked& L = target(in, w, l, li);
  if (L.builtin != Kernel::Builtin::None) {
    builtin(in, L, w, l);
    warps_[w].pc[l] = ret_pc;
    return;
  }
  Stack& st = stacks_[w * 32 + uint32_t(l)];
  const uint32_t saved = uint32_t(st.saves.size());
  if (L.recursive) enter_recursive(L, st, w, l);
  uint8_t* area = call_.data() + size_t(w * 32 + uint32_t(l)) * k_.call_bytes;
  for (const Kernel::Copy& c : L.in) std::memmove(area + c.to, area + c.from, c.bytes);
  st.frames.push_back({ret_pc, li, saved});
  warps_[w].pc[l] = L.entry;
}

// The entry a call reaches: its own, or for a call through a register the one of the
// function whose address the register holds. A value that is no function's address, or a
// function the call cannot reach, faults in one line.
const Kernel::Linked& BlockRun::target(const Insn& in, uint32_t w, int l, uint32_t& li) {
  const Kernel::Linked& first = k_.linked[li];
  if (!first.targets) return first;
  const uint64_t v = reg(w, in.o[1].reg, l);
  const uint64_t i = (v - kFunctionBase) / kFunctionStride;
  if (v < kFunctionBase || (v - kFunctionBase) % kFunctionStride || i >= first.targets || i >= d_.module().taken.size()) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)v);
    throw Fault("kernel " + kernel_name(k_.name) + ": PTX line " + std::to_string(in.text_line) +
                ": a call through a pointer that holds no function's address (" + hex + ")");
  }
  li += uint32_t(i);
  const Kernel::Linked& L = k_.linked[li];
  if (!L.refused.empty())
    throw Fault("kernel " + kernel_name(k_.name) + ": PTX line " + std::to_string(in.text_line) + ": " + L.refused);
  return L;
}

// A recursive call keeps the callee's registers and call-area bytes (they are the
// caller's own, or an activation's further up) and moves the thread's local frames on.
void BlockRun::enter_recursive(const Kernel::Linked& L, Stack& st, uint32_t w, int l) {
  if (st.depth >= k_.max_recursion)
    throw Fault("kernel " + kernel_name(k_.name) + ": recursion deeper than " + std::to_string(k_.max_recursion) +
                " calls, more than the emulated device's stack holds" +
                (k_.frame_bytes ? " (" + std::to_string(k_.frame_bytes) + " bytes of local memory a call)" : ""));
  ++st.depth;
  for (uint32_t r = 0; r < L.reg_count; ++r) st.saves.push_back(reg(w, L.reg_base + r, l));
  const uint8_t* area = call_.data() + size_t(w * 32 + uint32_t(l)) * k_.call_bytes;
  const size_t at = st.saves.size(), bytes = L.area_hi - L.area_lo;
  st.saves.resize(at + (bytes + 7) / 8);
  std::memcpy(st.saves.data() + at, area + L.area_lo, bytes);
  st.shift += k_.frame_bytes;
}

// One lane returns from its innermost call: the return values read out before a recursive
// call's saved state comes back (it covers the caller's slots), written after.
void BlockRun::ret(uint32_t w, int l) {
  Stack& st = stacks_[w * 32 + uint32_t(l)];
  const Frame f = st.frames.back();
  st.frames.pop_back();
  const Kernel::Linked& L = k_.linked[f.linked];
  uint8_t* area = call_.data() + size_t(w * 32 + uint32_t(l)) * k_.call_bytes;
  warps_[w].pc[l] = f.ret_pc;
  if (!L.recursive) {
    for (const Kernel::Copy& c : L.out) std::memmove(area + c.to, area + c.from, c.bytes);
    return;
  }
  uint8_t out[64];
  size_t used = 0;
  for (const Kernel::Copy& c : L.out) {
    if (used + c.bytes > sizeof out) throw Fault("kernel " + kernel_name(k_.name) + ": a return value over 64 bytes");
    std::memcpy(out + used, area + c.from, c.bytes);
    used += c.bytes;
  }
  for (uint32_t r = 0; r < L.reg_count; ++r) reg(w, L.reg_base + r, l) = st.saves[f.saved + r];
  std::memcpy(area + L.area_lo, st.saves.data() + f.saved + L.reg_count, L.area_hi - L.area_lo);
  st.saves.resize(f.saved);
  st.shift -= k_.frame_bytes;
  --st.depth;
  used = 0;
  for (const Kernel::Copy& c : L.out) {
    std::memcpy(area + c.to, out + used, c.bytes);
    used += c.bytes;
  }
}


// A builtin call of one lane (printf, assert, malloc, free), done at once.
void BlockRun::builtin(const Insn& in, const Kernel::Linked& L, uint32_t w, int l) {
  const uint8_t* area = call_.data() + size_t(w * 32 + uint32_t(l)) * k_.call_bytes;
  auto arg = [&](size_t i) {
    uint64_t v = 0;
    if (i < L.in.size()) std::memcpy(&v, area + L.in[i].from, std::min<uint32_t>(8, L.in[i].bytes));
    return v;
  };
  if (L.builtin == Kernel::Builtin::Printf) {
    const uint32_t n = device_printf(in, arg(0), arg(1), w, l);
    std::memcpy(const_cast<uint8_t*>(area) + L.ret_slot, &n, 4);
    return;
  }
  // The device heap is device memory like cudaMalloc's (no 8 MB limit): an allocation per
  // call, which the views name after the kernel; free of a null pointer does nothing.
  if (L.builtin == Kernel::Builtin::Malloc) {
    const uint64_t p = d_.malloc(arg(0), "malloc in " + kernel_name(k_.name));
    std::memcpy(const_cast<uint8_t*>(area) + L.ret_slot, &p, 8);
    return;
  }
  if (L.builtin == Kernel::Builtin::Free) {
    if (arg(0) && !d_.free(arg(0)))
      throw Fault("free of an address that malloc did not return (or freed already) in " + kernel_name(k_.name));
    return;
  }
  // __assertfail(message, file, line, function, char size)
  const uint32_t t = w * 32 + uint32_t(l);
  const trace::Dim3& b = a_.block;
  const std::string msg = device_string(in, arg(1), w, l) + ":" + std::to_string(uint32_t(arg(2))) + ": " +
                          device_string(in, arg(3), w, l) + ": block [" + std::to_string(ctaid_[0]) + "," +
                          std::to_string(ctaid_[1]) + "," + std::to_string(ctaid_[2]) + "], thread [" +
                          std::to_string(t % b.x) + "," + std::to_string((t / b.x) % b.y) + "," +
                          std::to_string(t / (b.x * b.y)) + "] Assertion `" + device_string(in, arg(0), w, l) +
                          "` failed.";
  Fault f(msg, true);
  place(f, in, w, l);
  f.kind = "assert";
  f.file_name = device_string(in, arg(1), w, l);
  f.line = uint32_t(arg(2));
  throw f;
}


// A string in device memory at generic address `a` (at most 4096 bytes).
std::string BlockRun::device_string(const Insn& in, uint64_t a, uint32_t w, int l) {
  std::string s;
  for (; s.size() < 4096; ++a) {
    const char c = char(*resolve(in, Space::Generic, a, 1, w, l).p);
    if (!c) break;
    s += c;
  }
  return s;
}


// printf in a kernel: the format and the argument buffer nvcc packed (each argument at
// its own alignment), formatted as the GPU formats them, written to the program's stdout.
uint32_t BlockRun::device_printf(const Insn& in, uint64_t fmt_addr, uint64_t args, uint32_t w, int l) {
  const std::string fmt = device_string(in, fmt_addr, w, l);
  std::string out;
  uint64_t at = args;
  auto take = [&](uint32_t bytes) {
    at = (at + bytes - 1) / bytes * bytes;
    uint64_t v = 0;
    std::memcpy(&v, resolve(in, Space::Generic, at, bytes, w, l).p, bytes);
    at += bytes;
    return v;
  };
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    size_t j = i + 1;
    while (j < fmt.size() && std::strchr("-+ #0123456789.*", fmt[j])) ++j;
    std::string len;
    while (j < fmt.size() && std::strchr("hlLqjzt", fmt[j])) len += fmt[j++];
    if (j >= fmt.size()) break;
    const char conv = fmt[j];
    std::string spec = fmt.substr(i, j - i - len.size());
    char buf[512];
    if (conv == '%') {
      out += '%';
    } else if (std::strchr("diouxXc", conv)) {
      const bool wide = len.find('l') != std::string::npos || len == "j" || len == "z" || len == "t" || len == "q";
      const uint64_t v = take(wide ? 8 : 4);
      const std::string f = spec + "ll" + conv;
      if (conv == 'd' || conv == 'i') std::snprintf(buf, sizeof buf, f.c_str(), wide ? (long long)v : (long long)int32_t(v));
      else if (conv == 'c') std::snprintf(buf, sizeof buf, (spec + conv).c_str(), int(v));
      else std::snprintf(buf, sizeof buf, f.c_str(), wide ? (unsigned long long)v : (unsigned long long)uint32_t(v));
      out += buf;
    } else if (std::strchr("fFeEgGaA", conv)) {
      const uint64_t v = take(8);
      std::snprintf(buf, sizeof buf, (spec + conv).c_str(), std::bit_cast<double>(v));
      out += buf;
    } else if (conv == 's') {
      const uint64_t p = take(8);
      const std::string str = p ? device_string(in, p, w, l) : "(null)";
      std::snprintf(buf, sizeof buf, (spec + 's').c_str(), str.c_str());
      out += buf;
    } else if (conv == 'p') {
      std::snprintf(buf, sizeof buf, "%p", reinterpret_cast<void*>(take(8)));
      out += buf;
    } else {
      out += fmt.substr(i, j - i + 1);
    }
    i = j;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return uint32_t(out.size());
}


}  // namespace ws::ptx
