# SPDX-License-Identifier: GPL-3.0-or-later
# Buffer-assignment decode + memory analysis benchmark; included from tests/bench/CMakeLists.txt.
add_executable(bench_memory ${CMAKE_CURRENT_LIST_DIR}/bench_memory.cpp)
target_link_libraries(bench_memory PRIVATE tpuscope_synth tpuscope_model tpuscope_proto)
target_compile_features(bench_memory PRIVATE cxx_std_20)
