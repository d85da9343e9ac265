// src/ptx/lexer.cpp — PTX text as tokens, and the spelling of PTX's types and numbers.
#include <cctype>

#include "ptx/reader.h"

namespace ws::ptx {

std::vector<Tok> tokenize(const std::string& s) {
  // Identifiers take PTX's dotted words and register sigils whole ("ld.global.f32",
  // "%r12", "$L__BB0_2", "ld.shared::cta.u32"); a number runs on through letters and dots so that 0f3F800000
  // and 1.5 stay one token.
  std::vector<Tok> out;
  uint32_t line = 1;
  size_t i = 0, n = s.size();
  auto ident_start = [](char c) { return std::isalpha((unsigned char)c) || c == '.' || c == '%' || c == '$' || c == '_'; };
  auto ident_char = [](char c) { return std::isalnum((unsigned char)c) || c == '.' || c == '_' || c == '$'; };
  while (i < n) {
    char c = s[i];
    if (c == '\n') { ++line; ++i; continue; }
    if (std::isspace((unsigned char)c)) { ++i; continue; }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') { while (i < n && s[i] != '\n') ++i; continue; }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      i += 2;
      while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/')) { if (s[i] == '\n') ++line; ++i; }
      i += 2;
      continue;
    }
    Tok t;
    t.line = line;
    if (ident_start(c)) {
      size_t j = i + 1;
      // "::" belongs to the word (ld.global.L1::no_allocate, shared::cta); one ':' ends a label.
      while (j < n && (ident_char(s[j]) || (s[j] == ':' && j + 2 < n && s[j + 1] == ':' && ident_char(s[j + 2]))))
        j += s[j] == ':' ? 2 : 1;
      t.kind = Tok::Ident;
      t.text = s.substr(i, j - i);
      i = j;
    } else if (std::isdigit((unsigned char)c)) {
      size_t j = i + 1;
      while (j < n && (std::isalnum((unsigned char)s[j]) || s[j] == '.')) ++j;
      t.kind = Tok::Number;
      t.text = s.substr(i, j - i);
      i = j;
    } else if (c == '"') {
      size_t j = i + 1;
      while (j < n && s[j] != '"') ++j;
      t.kind = Tok::String;
      t.text = s.substr(i + 1, j - i - 1);
      i = j + 1;
    } else {
      t.kind = Tok::Punct;
      t.text = std::string(1, c);
      ++i;
    }
    out.push_back(std::move(t));
  }
  Tok end;
  end.line = line;
  out.push_back(end);
  return out;
}

// Every type word PTX writes; .pred included (setp's destination, predicate registers).
const std::map<std::string, Type>& type_names() {
  static const std::map<std::string, Type> m{
      {"pred", Type::Pred}, {"b8", Type::B8},   {"b16", Type::B16}, {"b32", Type::B32}, {"b64", Type::B64},
      {"u8", Type::U8},     {"u16", Type::U16}, {"u32", Type::U32}, {"u64", Type::U64}, {"s8", Type::S8},
      {"s16", Type::S16},   {"s32", Type::S32}, {"s64", Type::S64}, {"f16", Type::F16}, {"f32", Type::F32},
      {"f64", Type::F64},   {"bf16", Type::BF16}, {"f16x2", Type::F16X2}, {"bf16x2", Type::BF16X2},
      {"e4m3x2", Type::E4M3X2}, {"e5m2x2", Type::E5M2X2}};
  return m;
}

// PTX writes integers in decimal or hex, unsigned ones with a U suffix.
bool parse_int(const std::string& t, int64_t& v) {
  if (t.empty()) return false;
  std::string s = t;
  if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.pop_back();
  try {
    size_t used = 0;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      v = int64_t(std::stoull(s.substr(2), &used, 16));
      return used == s.size() - 2;
    }
    v = int64_t(std::stoull(s, &used, 10));
    return used == s.size();
  } catch (...) {
    return false;
  }
}

// 0f3F800000 / 0d3FF0000000000000 (bits), or a plain integer.
bool parse_number(const std::string& t, int64_t& v, bool& is_f32bits) {
  is_f32bits = false;
  const bool f32 = t.size() > 2 && t[0] == '0' && (t[1] == 'f' || t[1] == 'F');
  const bool f64 = t.size() > 2 && t[0] == '0' && (t[1] == 'd' || t[1] == 'D');
  if (!f32 && !f64) return parse_int(t, v);
  // The bits in hexadecimal: 8 digits for 0f, 16 for 0d; anything else is not a number.
  const std::string digits = t.substr(2);
  if (digits.size() != (f32 ? 8u : 16u) ||
      digits.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    return false;
  v = int64_t(std::stoull(digits, nullptr, 16));
  is_f32bits = f32;
  return true;
}

std::vector<std::string> split_dots(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == '.') {
      if (i > start) out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

}  // namespace ws::ptx
