# SPDX-License-Identifier: GPL-3.0-or-later
# Fails when a source file under model/, widgets/ or app/ is over the line limit, naming each one:
# a file that long holds more than one job (issue 26). Run as
#   cmake -DSOURCE_DIR=<repo> [-DMAX_LINES=900] -P source_length_check.cmake
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "source_length_check: pass -DSOURCE_DIR=<the repository root>")
endif()
if(NOT MAX_LINES)
  set(MAX_LINES 900)
endif()
# Files issue 26 has not split yet, each with the length it had then: one may shrink but not grow,
# and once it is under the limit it must leave this list (so the list cannot go stale).
set(NOT_YET_SPLIT
  model/loader/chromejson.cpp=1034
  model/share/sharefile.cpp=1300
  model/synth/synth.cpp=1109)
set(checked 0)
set(too_long "")
foreach(folder model widgets app)
  if(NOT IS_DIRECTORY "${SOURCE_DIR}/${folder}")
    message(FATAL_ERROR "source_length_check: ${SOURCE_DIR}/${folder} is not a directory")
  endif()
  file(GLOB_RECURSE sources "${SOURCE_DIR}/${folder}/*.cpp" "${SOURCE_DIR}/${folder}/*.h")
  foreach(source ${sources})
    # file(STRINGS) drops empty lines; count newlines instead, as wc -l does.
    file(READ "${source}" text)
    string(REGEX MATCHALL "\n" newlines "${text}")
    list(LENGTH newlines count)
    math(EXPR checked "${checked} + 1")
    file(RELATIVE_PATH name "${SOURCE_DIR}" "${source}")
    set(limit ${MAX_LINES})
    set(listed FALSE)
    foreach(entry ${NOT_YET_SPLIT})
      if(entry MATCHES "^${name}=([0-9]+)$")
        set(limit ${CMAKE_MATCH_1})
        set(listed TRUE)
      endif()
    endforeach()
    if(count GREATER limit)
      string(APPEND too_long "\n  ${name}: ${count} lines (limit ${limit})")
    elseif(listed AND NOT count GREATER MAX_LINES)
      string(APPEND too_long "\n  ${name}: ${count} lines, now split: remove it from NOT_YET_SPLIT")
    endif()
  endforeach()
endforeach()
if(checked EQUAL 0)
  message(FATAL_ERROR "source_length_check: no .cpp or .h file found under ${SOURCE_DIR}")
endif()
if(too_long)
  message(FATAL_ERROR "source files over ${MAX_LINES} lines (split them along their seams):${too_long}")
endif()
message(STATUS "source_length_check: ${checked} files, none over ${MAX_LINES} lines")
