# The desktop app: Dear ImGui views (src/ui), the window and GL renderer (src/app), the
# GLSL of the big grids (shaders/). Included by the top CMakeLists.txt when WS_HAVE_GUI.
#
# Dear ImGui comes from the distribution; its GLFW and OpenGL3 backends are compiled here
# from the sources the package ships, with libepoxy as the OpenGL loader (the backend's
# own loader is switched off by IMGUI_IMPL_OPENGL_LOADER_CUSTOM).

add_library(ws_imgui_backends STATIC
  ${IMGUI_BACKENDS}/imgui_impl_glfw.cpp
  ${IMGUI_BACKENDS}/imgui_impl_opengl3.cpp)
target_include_directories(ws_imgui_backends PUBLIC ${IMGUI_INCLUDE} ${IMGUI_INCLUDE}/backends)
target_compile_definitions(ws_imgui_backends PRIVATE IMGUI_IMPL_OPENGL_LOADER_CUSTOM)
# The backend includes no GL header in custom-loader mode: give it libepoxy's first.
target_compile_options(ws_imgui_backends PRIVATE -include epoxy/gl.h -w)
target_link_libraries(ws_imgui_backends PUBLIC ${IMGUI_LIB} PkgConfig::GLFW PkgConfig::EPOXY)


# The figures (src/ui/figure), the panels (src/ui/views) and their controllers (src/ui):
# ImGui only (no GL, no CUDA), so the headless tests link them without a window.
file(GLOB WS_UI_SRC CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/ui/*.cpp ${CMAKE_SOURCE_DIR}/src/ui/figure/*.cpp
     ${CMAKE_SOURCE_DIR}/src/ui/views/*.cpp)
add_library(ws_ui STATIC ${WS_UI_SRC})
target_include_directories(ws_ui PUBLIC ${IMGUI_INCLUDE} ${CMAKE_SOURCE_DIR}/src)
target_include_directories(ws_ui PRIVATE ${GIF_INCLUDE})
target_link_libraries(ws_ui PUBLIC ws_session ${IMGUI_LIB} ${STB_LIB} PRIVATE PkgConfig::CAIRO PkgConfig::WEBP ${GIF_LIB})

# Shaders are embedded at configure time; editing one re-runs the configure step.
file(GLOB WS_SHADERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/shaders/*.glsl)
set(WS_SHADER_CPP ${CMAKE_BINARY_DIR}/generated/shaders.cpp)
set(ws_shader_body "// Generated from shaders/*.glsl.\n#include \"app/shaders.h\"\nnamespace ws::app {\nconst char* shader_source(const std::string& name) {\n")
foreach(f ${WS_SHADERS})
  get_filename_component(n ${f} NAME)
  file(READ ${f} text)
  string(APPEND ws_shader_body "  if (name == \"${n}\") return R\"ws_glsl(${text})ws_glsl\";\n")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${f})
endforeach()
string(APPEND ws_shader_body "  return nullptr;\n}\n}  // namespace ws::app\n")
file(WRITE ${WS_SHADER_CPP}.tmp "${ws_shader_body}")
file(COPY_FILE ${WS_SHADER_CPP}.tmp ${WS_SHADER_CPP} ONLY_IF_DIFFERENT)

file(GLOB WS_APP_SRC CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/app/*.cpp)
add_library(ws_app STATIC ${WS_APP_SRC} ${WS_SHADER_CPP})
target_include_directories(ws_app PUBLIC ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(ws_app PUBLIC ws_ui ws_session ws_imgui_backends ${STB_LIB})

target_sources(warpscope PRIVATE ${CMAKE_SOURCE_DIR}/src/cli/gui_options.cpp)
target_link_libraries(warpscope PRIVATE ws_app)
target_compile_definitions(warpscope PRIVATE WS_HAVE_GUI=1)

# The app on its own, with the options of `warpscope gui`.
add_executable(warpscope-app ${CMAKE_SOURCE_DIR}/src/cli/app_main.cpp ${CMAKE_SOURCE_DIR}/src/cli/gui_options.cpp
                             ${CMAKE_SOURCE_DIR}/src/cli/launch_options.cpp)
target_include_directories(warpscope-app PRIVATE ${CLI11_INCLUDE})
target_link_libraries(warpscope-app PRIVATE ws_app)

# Frame-time benchmark of the views (no window): a program, not a test.
if(WARPSCOPE_BENCHES)
  add_executable(ui_frame_bench ${CMAKE_SOURCE_DIR}/bench/gui/ui_frame_bench.cpp)
  target_link_libraries(ui_frame_bench PRIVATE ws_ui)
endif()
# The soak: thousands of frames while re-recording and rebuilding a program (a program too).
add_executable(ui_soak ${CMAKE_SOURCE_DIR}/bench/gui/ui_soak.cpp)
target_link_libraries(ui_soak PRIVATE ws_ui)
