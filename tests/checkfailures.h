// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A failed TPUSCOPE_CHECK (model/core/diagnostics.h) fails the test it happens in: release builds
// recover from it, so without this a test would pass over the bug the check reports. Include this
// header in one source file of a test executable (its main, or tests/model/checkfailures.cpp).

#include "core/diagnostics.h"

#include <gtest/gtest.h>

#include <string>

namespace tpuscope::test {

class FailTestOnInternalCheck : public ::testing::Environment
{
public:
    void SetUp() override
    {
        model::setLogSink([](model::LogLevel level, std::string_view area, std::string_view message) {
            if (area == "check")
                ADD_FAILURE() << message;
            else if (level == model::LogLevel::Error)
                std::fprintf(
                    stderr, "[%.*s] %.*s\n", int(area.size()), area.data(), int(message.size()), message.data());
        });
    }
    void TearDown() override { model::setLogSink({}); }
};

inline const bool kInternalChecksFailTests = (::testing::AddGlobalTestEnvironment(new FailTestOnInternalCheck), true);

} // namespace tpuscope::test
