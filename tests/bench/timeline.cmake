# SPDX-License-Identifier: GPL-3.0-or-later
# Timeline frame-time benchmark (needs the GUI libraries); included from tests/bench/CMakeLists.txt.
if(TPUSCOPE_BUILD_GUI)
  add_executable(bench_timeline ${CMAKE_CURRENT_LIST_DIR}/bench_timeline.cpp)
  target_link_libraries(bench_timeline PRIVATE tpuscope_synth tpuscope_widgets tpuscope_qtmodels tpuscope_model Qt6::Widgets Qt6::Test)
  target_compile_definitions(bench_timeline PRIVATE QT_NO_CAST_FROM_ASCII QT_NO_CAST_TO_ASCII)
endif()
