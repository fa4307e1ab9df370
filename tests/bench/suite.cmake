# SPDX-License-Identifier: GPL-3.0-or-later
# Unified performance benchmark: drives `tpuscope --bench-load` (app/benchmode.h) over generated
# inputs and compares with a libprotobuf reference; included from tests/bench/CMakeLists.txt. The
# driver itself is Qt-free; without the GUI it needs --app PATH.
add_executable(bench_suite ${CMAKE_CURRENT_LIST_DIR}/bench_suite.cpp)
target_link_libraries(bench_suite PRIVATE tpuscope_bench_generators)
if(TPUSCOPE_BUILD_GUI)
  target_compile_definitions(bench_suite PRIVATE TPUSCOPE_GUI_PATH="$<TARGET_FILE:tpuscope>")
  add_dependencies(bench_suite tpuscope)
endif()
