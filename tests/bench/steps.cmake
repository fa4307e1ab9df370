# SPDX-License-Identifier: GPL-3.0-or-later
# steps vs summary on a generated XSpace (issue 14); included from tests/bench/CMakeLists.txt.
add_executable(bench_steps ${CMAKE_CURRENT_LIST_DIR}/bench_steps.cpp)
target_link_libraries(bench_steps PRIVATE tpuscope_bench_generators tpuscope_model tpuscope_proto)
target_compile_features(bench_steps PRIVATE cxx_std_20)
