// src/analysis/matrix.cpp — an ldmatrix / stmatrix request row by row: the banks each
// lane's 16-byte row covers and which rows of one 8x8 matrix meet in a bank, the counts
// shared_cost() makes of the same request.
#include <algorithm>
#include <bit>

#include "analysis/analysis.h"

namespace ws::analysis {

std::vector<MatrixPhase> matrix_phases(const trace::Record& r) {
  // bank_words() already splits a 16-byte access into its four 8-lane phases and counts
  // the distinct words in each bank: each row reads its n-way from there.
  const std::vector<BankWord> words = bank_words(r, 16);
  std::vector<MatrixPhase> out(4);
  for (uint32_t m = 0; m < 4; ++m) {
    MatrixPhase& p = out[m];
    p.matrix = m;
    for (uint32_t row = 0; row < 8; ++row) {
      MatrixRow& mr = p.rows[row];
      mr.lane = 8 * m + row;
      mr.active = r.lane_active(int(mr.lane));
      if (!mr.active) continue;
      mr.offset = r.address(int(mr.lane));
      mr.first_bank = bank_of(mr.offset);
    }
    for (const BankWord& w : words) {
      if (w.phase != m) continue;
      for (uint32_t bits = w.lanes; bits; bits &= bits - 1) {
        MatrixRow& mr = p.rows[uint32_t(std::countr_zero(bits)) % 8];
        mr.way = std::max(mr.way, w.way);
      }
      p.wavefronts = std::max(p.wavefronts, w.way);
    }
    // Rows that meet: another row touches a different word in one of this row's banks.
    for (const BankWord& a : words) {
      if (a.phase != m || a.way < 2) continue;
      for (const BankWord& b : words) {
        if (b.phase != m || b.bank != a.bank || b.word == a.word) continue;
        for (uint32_t la = a.lanes; la; la &= la - 1)
          for (uint32_t lb = b.lanes; lb; lb &= lb - 1)
            p.rows[uint32_t(std::countr_zero(la)) % 8].shares |= 1u << (uint32_t(std::countr_zero(lb)) % 8);
      }
    }
  }
  return out;
}

}  // namespace ws::analysis
