# GPU tests, labelled "gpu". They exit 77 (skipped) on a machine without a usable GPU; a
# build without the GPU backend registers one placeholder that reports them skipped.
if(WS_HAVE_CUDA)
  add_executable(test_gpu ${CMAKE_CURRENT_LIST_DIR}/gpu/main.cpp ${CMAKE_CURRENT_LIST_DIR}/gpu/test_gpu.cpp
                          ${CMAKE_CURRENT_LIST_DIR}/gpu/test_gpu_tracer.cpp ${CMAKE_SOURCE_DIR}/src/cli/catalog_sass.cpp)
  target_include_directories(test_gpu PRIVATE ${DOCTEST_INCLUDE})
  # catalog_sass runs the command-line warpscope as its child: this build's.
  target_compile_definitions(test_gpu PRIVATE WS_CLI_PATH="${CMAKE_BINARY_DIR}/warpscope")
  target_link_libraries(test_gpu PRIVATE ws_gpu ws_emu ws_analysis ws_program ws_session)
  add_test(NAME test_gpu COMMAND test_gpu)
  set_tests_properties(test_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})

  # The device-side tool of scripts/device/run_all.sh: bench, hardware-counter probes,
  # sanitizer runs and replay traces.
  add_executable(ws_gpu_tool ${CMAKE_CURRENT_LIST_DIR}/gpu/tool.cpp ${CMAKE_SOURCE_DIR}/src/cli/cmd_bench.cpp
                             ${CMAKE_SOURCE_DIR}/src/cli/options.cpp
                             ${CMAKE_SOURCE_DIR}/src/cli/launch_options.cpp)
  target_link_libraries(ws_gpu_tool PRIVATE ws_session ws_gpu)
  target_include_directories(ws_gpu_tool PRIVATE ${CLI11_INCLUDE})
  # The PTX differential test's GPU side: runs the generated cases, writes the fixture. It
  # opens the driver at run time (no link to libcuda), so it builds wherever nvcc is.
  add_executable(ptx_diff_gpu ${CMAKE_CURRENT_LIST_DIR}/ptx/diff/gpu_run.cpp)
  target_include_directories(ptx_diff_gpu PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  target_link_libraries(ptx_diff_gpu PRIVATE ws_ptx_diff ${CMAKE_DL_LIBS})
  # Without a GPU still: every generated case must be PTX the GPU's assembler accepts.
  get_filename_component(WS_CUDA_BIN_DIR "${CMAKE_CUDA_COMPILER}" DIRECTORY)
  find_program(WS_PTXAS ptxas HINTS ${WS_CUDA_BIN_DIR})
  if(WS_PTXAS)
    add_test(NAME ptx_diff_ptxas COMMAND ${WS_PTXAS} -arch=sm_90a ${WS_DIFF_GEN}/ptx_diff.ptx -o ${WS_DIFF_GEN}/ptx_diff.cubin)
    set_tests_properties(ptx_diff_ptxas PROPERTIES LABELS cpu)
  endif()
  # Zero cost without a GPU: the plain instantiation of every single-source kernel must
  # compile to the same PTX as its hand-written twin.
  find_package(Python3 COMPONENTS Interpreter)
  if(Python3_Interpreter_FOUND)
    add_test(NAME zero_cost_ptx
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/zero_cost_ptx.py ${CMAKE_CUDA_COMPILER}
                     ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/zero_cost_ptx)
    set_tests_properties(zero_cost_ptx PROPERTIES LABELS cpu)
  endif()
else()
  add_test(NAME test_gpu COMMAND sh -c "echo 'GPU tests skipped: this build has no GPU backend'; exit 77")
  set_tests_properties(test_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
endif()
