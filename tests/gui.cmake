# Tests of the desktop app: the views headless (label cpu), and the real binary under
# Xvfb (label xvfb; skipped when xvfb-run is missing).
if(NOT WS_HAVE_GUI)
  return()
endif()
# The views headless, and the memory view's grid maths (zoom, pan, bands) on catalog traces;
# the tensor-core views on a hand-built tile loop, the pipeline view on a hand-built ring,
# the cluster view on a hand-built cluster.
ws_test(test_gui SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_views.cpp ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_program_view.cpp
        ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_source_view.cpp
        ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_grid_view.cpp ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_tensor_views.cpp
        ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_pipeline_view.cpp ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_cluster_view.cpp LIBS ws_ui)
# The timing panel (its ladder, scale and sizes, the replay pack found from any folder) and
# the DRAM panel's defaults.
ws_test(test_panels SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_timing.cpp
        ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_dram_panel.cpp LIBS ws_ui)

add_executable(ws_png_check ${CMAKE_CURRENT_SOURCE_DIR}/gui/png_check.cpp)
target_link_libraries(ws_png_check PRIVATE ${STB_LIB} nlohmann_json::nlohmann_json)
add_test(NAME gui_xvfb_screenshot
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gui/xvfb_screenshot.sh $<TARGET_FILE:warpscope-app>
                 $<TARGET_FILE:ws_png_check> ${CMAKE_BINARY_DIR}/gui-screenshots $<TARGET_FILE:warpscope>)
set_tests_properties(gui_xvfb_screenshot PROPERTIES LABELS xvfb SKIP_RETURN_CODE 77 TIMEOUT 600
                     WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})

# The soak's short form (bench/gui/ui_soak.cpp): 600 frames, 12 recordings in the
# background, the 200,000-record trace shown again 12 times, under the build's sanitizers
# (memory errors, leaks). Its limits (growth, frame time) hold for the long run in a release
# build only (docs/reliability.md).
add_test(NAME ui_soak_short COMMAND ui_soak --frames 600 --records 200000 --cycle 50 --no-limits)
set_tests_properties(ui_soak_short PROPERTIES LABELS cpu TIMEOUT 300)

# Figure export (warpscope export): headless, no display needed.
pkg_check_modules(WEBPDEMUX REQUIRED IMPORTED_TARGET libwebpdemux)
ws_test(test_export SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_export.cpp
        LIBS ws_ui PkgConfig::CAIRO PkgConfig::WEBPDEMUX ${GIF_LIB} ${STB_LIB})
target_include_directories(test_export PRIVATE ${GIF_INCLUDE})
target_compile_definitions(test_export PRIVATE WS_BINARY="$<TARGET_FILE:warpscope>")
add_dependencies(test_export warpscope)

# Layout rules (docs/architecture.md, "The app") on every layout and every figure, headless;
# the widgets' texts caught as test_lessons does; a program open in the app, its panels' texts.
ws_test(test_layout SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_layout.cpp ${CMAKE_CURRENT_SOURCE_DIR}/gui/drawn_text.cpp
        ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_program_panel.cpp LIBS ws_ui)
target_link_options(test_layout PRIVATE "LINKER:--wrap=_ZN10ImDrawList7AddTextEPK6ImFontfRK6ImVec2jPKcS7_fPK6ImVec4"
                    "LINKER:--wrap=_ZN10ImDrawList7AddTextERK6ImVec2jPKcS4_")

# Lessons played in the app, headless; every text drawn caught at ImDrawList::AddText
# (gui/drawn_text.h) to look for an answer on screen before it is given.
ws_test(test_lessons SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_lessons.cpp ${CMAKE_CURRENT_SOURCE_DIR}/gui/drawn_text.cpp
        LIBS ws_ui)
target_link_options(test_lessons PRIVATE "LINKER:--wrap=_ZN10ImDrawList7AddTextEPK6ImFontfRK6ImVec2jPKcS7_fPK6ImVec4"
                    "LINKER:--wrap=_ZN10ImDrawList7AddTextERK6ImVec2jPKcS4_")
