// src/ptx/builtins.cpp — calls: a lane entering a device function linked into its kernel
// (arguments copied into its frame, where to return kept), and the functions the device
// itself provides: printf (formatted as the GPU formats it, to the program's stdout),
// assert (a failed one ends the launch with the GPU's message), malloc and free.
#include <bit>
#include <cstdio>
#include <cstring>

#include "ptx/block_run.h"

namespace ws::ptx {

// One lane enters a device function: its arguments copied in, where to return kept.
void BlockRun::call(const Insn& in, uint32_t w, int l, uint32_t ret_pc) {
  const uint32_t li = uint32_t(in.o[0].imm);
  const Kernel::Linked& L = k_.linked[li];
  if (L.builtin != Kernel::Builtin::None) {
    builtin(in, L, w, l);
    warps_[w].pc[l] = ret_pc;
    return;
  }
  std::vector<Frame>& fr = frames_[w * 32 + uint32_t(l)];
  for (const Frame& f : fr)
    if (k_.linked[f.linked].function == L.function)
      throw Fault("recursion (a device function calling itself) is not supported by the emulated device, in " +
                  kernel_name(k_.name));
  if (fr.size() >= 64) throw Fault("device function calls nested more than 64 deep in " + kernel_name(k_.name));
  uint8_t* area = call_.data() + size_t(w * 32 + uint32_t(l)) * k_.call_bytes;
  for (const Kernel::Copy& c : L.in) std::memmove(area + c.to, area + c.from, c.bytes);
  fr.push_back({ret_pc, li});
  warps_[w].pc[l] = L.entry;
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
