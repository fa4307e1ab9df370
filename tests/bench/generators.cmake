# SPDX-License-Identifier: GPL-3.0-or-later
# Qt-free code shared by the benchmarks: the libprotobuf-arena reference reader and process/memory
# helpers; the seeded inputs (PERFORMANCE.md Appendices A and B) come from tpuscope_synth.
add_library(tpuscope_bench_generators STATIC ${CMAKE_CURRENT_LIST_DIR}/generators.cpp)
target_include_directories(tpuscope_bench_generators PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(tpuscope_bench_generators PUBLIC tpuscope_synth tpuscope_proto ZLIB::ZLIB Threads::Threads)
target_compile_features(tpuscope_bench_generators PUBLIC cxx_std_20)
