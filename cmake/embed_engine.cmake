# Writes OUT: the texts the compiling engine's generated code is compiled with (its headers
# and half.cpp), as this build has them, for ws::ptx::engine_sources() (src/ptx/engine.h).
# Called with -DOUT=... -DROOT=<src folder> -DFILES="ptx/a.h|ptx/b.h".
string(REPLACE "|" ";" FILES "${FILES}")
set(body "#include \"ptx/engine.h\"\nnamespace ws::ptx {\nnamespace {\n")
set(entries "")
set(i 0)
foreach(f IN LISTS FILES)
  file(READ "${ROOT}/${f}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  string(APPEND body "const unsigned char k${i}[] = {${hex} 0};\n")
  string(APPEND entries "      {\"${f}\", std::string(reinterpret_cast<const char*>(k${i}), sizeof(k${i}) - 1)},\n")
  math(EXPR i "${i} + 1")
endforeach()
string(APPEND body "}  // namespace\nconst std::vector<std::pair<std::string, std::string>>& engine_sources() {\n  static const std::vector<std::pair<std::string, std::string>> files = {\n${entries}  };\n  return files;\n}\n}  // namespace ws::ptx\n")
file(WRITE "${OUT}.tmp" "${body}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
