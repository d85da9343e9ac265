// The site key both backends record, on its own.
#include <doctest/doctest.h>

#include "trace/trace.h"

using namespace ws::trace;

TEST_CASE("site keys: line, buffer, op and width, and back") {
  const uint32_t k = make_key(123, 5, uint32_t(Op::Load), 16);
  CHECK(k == (123u | 5u << 16 | 4u << 26));
  CHECK(key_line(k) == 123);
  CHECK(key_buffer(k) == 5);
  CHECK(key_op(k) == uint32_t(Op::Load));
  CHECK(key_bytes(k) == 16);
  CHECK(key_op(store_key(k)) == uint32_t(Op::Store));
  CHECK(key_line(store_key(k)) == 123);
  for (uint32_t b : {1u, 2u, 4u, 8u, 16u}) CHECK(key_bytes(make_key(1, 0, 0, b)) == b);
  Site s;
  s.line = 7;
  s.buffer = 2;
  s.op = Op::Store;
  s.bytes = 8;
  CHECK(key_of(s) == store_key(make_key(7, 2, 0, 8)));
}
