// src/ptx/matrix.h — the warp-collective matrix instructions (ldmatrix, stmatrix, movmatrix,
// mma.sync, wmma) read from their dotted words into one packed field of the instruction
// (Insn::matrix), and where each element of their fragments lies: mma.sync's as the PTX
// ISA's figures place them, wmma's as this interpreter chooses (a program sees a wmma
// fragment only through load, store, mma and elementwise access). Private to src/ptx.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ws::ptx::matrix {

enum class Shape : uint8_t { None, M8N8, M16N8K8, M16N8K16, M16N8K32, M8N8K4, M16N16K16, M32N8K16, M8N32K16, M16N16K8 };
// What the instruction does: ldmatrix, stmatrix, movmatrix, mma.sync; wmma's five.
enum class Part : uint8_t { Ldmatrix, Stmatrix, Movmatrix, Mma, LoadA, LoadB, LoadC, StoreD, WmmaMma };
// Element types of a fragment (tf32 has no register type of its own: an f32 read so).
enum class Elem : uint8_t { None, B16, F16, BF16, TF32, F32, F64, S8, U8, S32 };

struct Info {
  Shape shape = Shape::None;
  Part part = Part::Ldmatrix;
  uint8_t count = 1;         // ldmatrix / stmatrix: matrices (.x1, .x2, .x4)
  bool trans = false;        // ldmatrix / stmatrix .trans
  bool a_col = false;        // mma: A column-major; wmma load/store: the memory is column-major
  bool b_col = false;        // mma: B column-major
  bool satfinite = false;    // integer mma: clamp to the s32 range
  Elem d = Elem::None, a = Elem::None, b = Elem::None, c = Elem::None;  // load/store: `a` is the type
};

uint32_t pack(const Info& i);
Info unpack(uint32_t bits);

// An opcode of these families split at its dots ({"mma", "sync", ...}) read into `info`;
// returns why it is refused ("the shape .m16n8k4 with f16 is not implemented"), "" when it
// runs. The opcodes.def forms have already taken every word; this checks the combination.
std::string decode(const std::vector<std::string>& parts, Info& info);

struct Dims {
  uint32_t m = 0, n = 0, k = 0;
};
Dims dims(Shape s);
uint32_t elem_bits(Elem e);

// Where an element of a fragment lies in its matrix.
struct At {
  uint32_t row = 0, col = 0;
};
// mma.sync: element i of lane l's A (m x k), B (k x n: row is k) and C/D (m x n) fragments,
// counted as the registers hold them (register j holds elements 32/width * j onwards, the
// lowest bits first). The counts are the elements each lane holds.
uint32_t mma_count_a(const Info& in);
uint32_t mma_count_b(const Info& in);
uint32_t mma_count_c(const Info& in);
At mma_a(const Info& in, int lane, uint32_t i);
At mma_b(const Info& in, int lane, uint32_t i);
At mma_c(const Info& in, int lane, uint32_t i);

// wmma: the matrix a part works on (rows x cols: A m x k, B k x n, C/D m x n) and element e
// of lane l's fragment. Lane l holds the elements q = l * per + e (per = rows * cols / 32) of
// the matrix read in its memory order (row- or column-major), so that each lane's share is
// one run of consecutive bytes; an accumulator fragment is always read row-major, since
// wmma.mma does not say how C was loaded. Elements past `per` repeat the first ones (f16
// fragments have more registers than elements).
Dims wmma_matrix(const Info& in);  // rows in m, cols in n
At wmma_at(uint32_t rows, uint32_t cols, bool col_major, int lane, uint32_t e);

}  // namespace ws::ptx::matrix
