# SPDX-License-Identifier: GPL-3.0-or-later
# Chrome trace JSON load benchmark; included from tests/bench/CMakeLists.txt.
add_executable(bench_json ${CMAKE_CURRENT_LIST_DIR}/bench_json.cpp)
target_link_libraries(bench_json PRIVATE tpuscope_bench_generators tpuscope_model tpuscope_proto ZLIB::ZLIB)
target_compile_features(bench_json PRIVATE cxx_std_20)
