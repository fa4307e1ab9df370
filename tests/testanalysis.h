// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What TraceSession hands the views after a load, for tests that feed a view directly.

#include "analysis/profileanalysis.h"

namespace tpuscope::test {

inline model::ProfileAnalysisPtr analysisOf(model::ProfilePtr profile)
{
    return profile ? model::buildProfileAnalysis(std::move(profile), {}, {}, model::AnalysisFor::Window) : nullptr;
}

} // namespace tpuscope::test
