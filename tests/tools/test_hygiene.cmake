# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -DTESTS_DIR=<repo>/tests -P test_hygiene.cmake
#
# Fails when a test proves "X did not happen" by waiting a fixed time, or bounds how long something
# took by the wall clock: both pass or fail with the machine's load, not with the code. Instead a
# test delivers what is queued (QCoreApplication::sendPostedEvents), waits for a condition
# (QTest::qWaitFor, QSignalSpy::wait: their timeout only ends a hang) or waits for the jobs that
# could deliver X (TraceSession::waitForJobs). tests/bench measures time on purpose and is skipped.
# Also fails when a golden tool in tests/tools reads the project's proto/ instead of its own schema.
# The rules are first run on files made here, so that a scan that can no longer fail fails.
cmake_minimum_required(VERSION 3.20)

set(TIMING_RULES
  "qWait\\("
  "QTest::qWait waits a fixed time: wait for the condition (QTest::qWaitFor, QSignalSpy::wait) or deliver what is queued"
  "qSleep\\(|sleep_for\\(|sleep_until\\(|usleep\\(|nanosleep\\(|QThread::[mu]?sleep\\("
  "a fixed sleep: wait for the condition instead"
  "QElapsedTimer|QDeadlineTimer|steady_clock|system_clock|high_resolution_clock|clock_gettime|gettimeofday|\\.elapsed\\(\\)|nsecsElapsed"
  "a wall clock in a test: waits use QTest::qWaitFor / QSignalSpy::wait, and no test asserts how long something took")
set(TOOL_RULES
  "proto_path[= ]+proto|-I *proto([/ \"']|$)|\"proto\"|'proto'|\\.\\./proto"
  "a golden tool reads the project's proto/: the tools decode with their own schema (tests/tools/schema)")

# scan(RESULT FILES RULES...): appends "file:line: message: text" for every match to RESULT.
function(scan result files)
  set(rules ${ARGN})
  set(found ${${result}})
  foreach(file IN LISTS files)
    # One list element per line: ';' and brackets would split or join elements, so they are
    # stood in for until the report is printed.
    file(READ "${file}" content)
    string(REPLACE ";" "@SEMICOLON@" content "${content}")
    string(REPLACE "[" "@LBRACKET@" content "${content}")
    string(REPLACE "]" "@RBRACKET@" content "${content}")
    string(REPLACE "\n" ";" lines "${content}")
    set(number 0)
    foreach(line IN LISTS lines)
      math(EXPR number "${number} + 1")
      set(i 0)
      list(LENGTH rules count)
      while(i LESS count)
        list(GET rules ${i} pattern)
        math(EXPR j "${i} + 1")
        list(GET rules ${j} message)
        if(line MATCHES "${pattern}")
          string(STRIP "${line}" text)
          list(APPEND found "${file}:${number}: ${message}: ${text}")
        endif()
        math(EXPR i "${i} + 2")
      endwhile()
    endforeach()
  endforeach()
  set(${result} "${found}" PARENT_SCOPE)
endfunction()

# report(OUT FOUND): the findings one a line, with the stood-in characters back.
function(report out found)
  string(REPLACE ";" "\n  " text "${found}")
  string(REPLACE "@SEMICOLON@" ";" text "${text}")
  string(REPLACE "@LBRACKET@" "[" text "${text}")
  string(REPLACE "@RBRACKET@" "]" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# The scan on itself: each rule must fire on a line made to break it, and not on the waits allowed.
string(RANDOM LENGTH 8 salt)
set(probe_dir "${CMAKE_CURRENT_BINARY_DIR}/test_hygiene_probe_${salt}")
file(MAKE_DIRECTORY "${probe_dir}")
file(WRITE "${probe_dir}/bad.cpp"
  "    QTest::qWait(200);\n    std::this_thread::sleep_for(1ms);\n    QElapsedTimer t;\n"
  "    EXPECT_LT(t.elapsed(), 2000);\n    auto s = std::chrono::steady_clock::now();\n")
file(WRITE "${probe_dir}/bad.py" "PROTO_DIR = os.path.join(HERE, \"..\", \"..\", \"proto\")\n")
file(WRITE "${probe_dir}/good.cpp"
  "    ASSERT_TRUE(QTest::qWaitFor([&] { return done; }, 10'000));\n"
  "    EXPECT_TRUE(QTest::qWaitForWindowExposed(&window));\n    ASSERT_TRUE(spy.wait(60000));\n"
  "    QCoreApplication::sendPostedEvents();\n")
file(WRITE "${probe_dir}/good.py" "subprocess.run([protoc(), \"-I\" + SCHEMA_DIR, \"xplane.proto\"])\n")
set(probe_hits "")
scan(probe_hits "${probe_dir}/bad.cpp" ${TIMING_RULES})
scan(probe_hits "${probe_dir}/bad.py" ${TOOL_RULES})
list(LENGTH probe_hits bad_count)
set(probe_misses "")
scan(probe_misses "${probe_dir}/good.cpp" ${TIMING_RULES})
scan(probe_misses "${probe_dir}/good.py" ${TOOL_RULES})
list(LENGTH probe_misses good_count)
file(REMOVE_RECURSE "${probe_dir}")
if(NOT bad_count EQUAL 6 OR NOT good_count EQUAL 0)
  report(hits "${probe_hits};${probe_misses}")
  message(FATAL_ERROR "the hygiene scan is broken: ${bad_count} of 6 planted lines found, ${good_count} "
    "allowed lines flagged:\n  ${hits}")
endif()

if(NOT TESTS_DIR OR NOT IS_DIRECTORY "${TESTS_DIR}")
  message(FATAL_ERROR "usage: cmake -DTESTS_DIR=<repo>/tests -P test_hygiene.cmake")
endif()
file(GLOB_RECURSE sources "${TESTS_DIR}/*.cpp" "${TESTS_DIR}/*.h" "${TESTS_DIR}/*.hpp")
list(FILTER sources EXCLUDE REGEX "^${TESTS_DIR}/bench/")
file(GLOB tools "${TESTS_DIR}/tools/*.py" "${TESTS_DIR}/tools/*.sh")
set(problems "")
scan(problems "${sources}" ${TIMING_RULES})
scan(problems "${tools}" ${TOOL_RULES})
list(LENGTH sources source_count)
list(LENGTH tools tool_count)
if(problems)
  report(listing "${problems}")
  message(FATAL_ERROR "test hygiene:\n  ${listing}")
endif()
message(STATUS "test hygiene: ${source_count} test sources and ${tool_count} tools clean")
