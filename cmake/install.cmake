# `cmake --install` and the .deb (CPack): the programs in bin/, the emulated CUDA runtime,
# cuBLAS and cuRAND (and the GPU tracer where built) in lib/warpscope/, where `warpscope run`
# looks beside its binary, and the assets, examples, desktop entry, icon, MIME types and
# man page in share/. Included by the top CMakeLists.txt after every target is defined.
include(GNUInstallDirs)
set(WS_PRIVATE_LIB lib/warpscope)  # src/program/program.cpp: <bin>/../lib/warpscope
install(TARGETS warpscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET warpscope-app)
  install(TARGETS warpscope-app RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
foreach(t ws_cudart ws_cublas ws_cublaslt ws_curand ws_cuda warpscope_tracer)
  if(TARGET ${t})
    install(TARGETS ${t} LIBRARY DESTINATION ${WS_PRIVATE_LIB} NAMELINK_SKIP)
  endif()
endforeach()
if(WS_TRACER_PATCH)
  install(FILES ${WS_TRACER_PATCH} DESTINATION ${WS_PRIVATE_LIB})
endif()
set(WS_SHARE ${CMAKE_INSTALL_DATADIR}/warpscope)  # src/trace/assets.cpp: <bin>/../share/warpscope
install(DIRECTORY ${CMAKE_SOURCE_DIR}/assets/ DESTINATION ${WS_SHARE})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples/ DESTINATION ${WS_SHARE}/examples)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/warpscope.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/warpscope.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/warpscope.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages)
# The man page, compressed as Debian keeps them.
set(WS_MAN_GZ ${CMAKE_BINARY_DIR}/generated/warpscope.1.gz)
add_custom_command(OUTPUT ${WS_MAN_GZ}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated
  COMMAND gzip -9 -n -c ${CMAKE_SOURCE_DIR}/docs/man/warpscope.1 > ${WS_MAN_GZ}
  DEPENDS ${CMAKE_SOURCE_DIR}/docs/man/warpscope.1 VERBATIM)
add_custom_target(ws_man ALL DEPENDS ${WS_MAN_GZ})
install(FILES ${WS_MAN_GZ} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The .deb: Debian packages only as dependencies (dpkg-shlibdeps reads them off the
# binaries); the CUDA toolkit is suggested, not required: `warpscope run` finds nvcc at
# run time and says so in one line when there is none. scripts/package.sh builds the
# release package (Release, without the GPU backend, whose CUDA libraries are not Debian's).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME warpscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "see how GPU kernels touch memory: coalescing, bank conflicts, DRAM spread")
set(CPACK_PACKAGE_DESCRIPTION "An interactive visualizer of GPU memory access patterns for teaching CUDA: the course kernels and your own programs, recorded lane by lane on an emulated device or a GPU, analysed into sectors, wavefronts and DRAM channels, and drawn step by step.")
set(CPACK_PACKAGE_CONTACT "warpscope maintainers <warpscope@users.noreply.localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_BINARY_DIR}/emulated)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fonts-dejavu-core")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "xvfb, xauth")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "nvidia-cuda-toolkit")
set(WARPSCOPE_PACKAGE_COMPRESSION xz CACHE STRING "compression of the .deb (gzip for a quick test package)")
set(CPACK_DEBIAN_COMPRESSION_TYPE ${WARPSCOPE_PACKAGE_COMPRESSION})
set(CPACK_STRIP_FILES ON)
include(CPack)
