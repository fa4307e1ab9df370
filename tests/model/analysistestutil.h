// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Helpers the analysis and advice tests share: the synthetic demo profile, built once, and advice
// lookups that fail the test (not crash it) when an item or number is missing.

#include "analysis/advice.h"
#include "loader/loader.h"
#include "synth/synth.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace tpuscope::test {

/// The origin-story demo (`tpuscope-cli synth origin-story`), generated and loaded once per run.
inline model::ProfilePtr demoProfile()
{
    static const model::ProfilePtr profile = [] {
        std::string bytes, error;
        EXPECT_TRUE(model::syntheticXSpaceBytes({}, bytes, error)) << error;
        model::LoadResult loaded = model::loadProfileFromBytes(bytes, "demo.xplane.pb");
        EXPECT_TRUE(loaded.ok()) << loaded.error;
        return loaded.profile;
    }();
    return profile;
}

/// An XLA op added to `b` with its name, category and (optionally) shape with layout.
inline model::OpId addXlaOp(
    model::ProfileBuilder& b, const std::string& name, const std::string& category, const std::string& shape = {})
{
    model::OpInfo info;
    info.name = b.intern(name);
    info.category = b.intern(category);
    info.shapeWithLayout = b.intern(shape);
    info.isXlaOp = true;
    return b.addOp(info);
}

/// The first advice item of a rule, or nullptr.
inline const model::Advice* findAdvice(const model::AdviceReport& report, std::string_view rule)
{
    for (const model::Advice& a : report.advice)
        if (a.rule == rule)
            return &a;
    return nullptr;
}

/// A number of an advice item; fails the test (and returns -1) when it is missing.
inline double adviceNumber(const model::Advice& a, std::string_view name)
{
    const model::AdviceValue* v = a.numbers.find(name);
    EXPECT_TRUE(v) << name;
    return v ? v->number : -1;
}

/// A text of an advice item; fails the test (and returns "") when it is missing.
inline std::string adviceText(const model::Advice& a, std::string_view name)
{
    const model::AdviceValue* v = a.numbers.find(name);
    EXPECT_TRUE(v) << name;
    return v ? v->text : std::string();
}

} // namespace tpuscope::test
