// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Shared by the libFuzzer targets: load options that keep a fuzzed input inside libFuzzer's
// memory limit, and the analysis passes run on every profile a fuzzed file produced, so bad
// values that decode "successfully" are caught where they are used.

#include "analysis/opbreakdown.h"
#include "analysis/summary.h"
#include "loader/loader.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tpuscope::fuzz {

inline model::LoadOptions fuzzLoadOptions()
{
    model::LoadOptions options;
    // libFuzzer's default RSS limit is 2 GB; the default budget (half the RAM) would trip it
    // before the loader's own limit is reached.
    options.maxDecompressedBytes = 64ull << 20;
    return options;
}

inline void exerciseProfile(const model::Profile& profile)
{
    (void)model::computeOpBreakdown(profile);
    (void)model::computeSummary(profile);
    (void)model::computeStepStats(profile);
}

inline void loadAndExercise(const uint8_t* data, size_t size, const std::string& name)
{
    model::LoadResult result
        = model::loadProfileFromBytes(std::string(reinterpret_cast<const char*>(data), size), name, fuzzLoadOptions());
    if (result.ok())
        exerciseProfile(*result.profile);
}

} // namespace tpuscope::fuzz
