# SPDX-License-Identifier: GPL-3.0-or-later
# XSpace load benchmark (tpuscope vs. libprotobuf arena); included from tests/bench/CMakeLists.txt.
add_executable(bench_load ${CMAKE_CURRENT_LIST_DIR}/bench_load.cpp)
target_link_libraries(bench_load PRIVATE tpuscope_bench_generators tpuscope_model tpuscope_proto ZLIB::ZLIB)
