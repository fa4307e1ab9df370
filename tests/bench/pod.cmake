# SPDX-License-Identifier: GPL-3.0-or-later
# Pod benchmark (issue 23, points 5 and 6): load a 64-host log dir; merge 256 host share files.
add_executable(bench_pod ${CMAKE_CURRENT_LIST_DIR}/bench_pod.cpp)
target_link_libraries(bench_pod PRIVATE tpuscope_bench_generators tpuscope_model tpuscope_synth)
