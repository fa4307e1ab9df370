// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// An independent reading of an op_profile.json (the expected values of the op_profile tests in
// tests/model and tests/cli): written from FORMATS.md, not from our loader.

#include "core/jsondom.h"

#include <cstdint>
#include <map>
#include <string>

namespace tpuscope::test {

using tpuscope::model::json::Value;

struct ExpectedOp
{
    double rawTime = 0;
    double uncapped = 0;
    int64_t occurrences = 0;
};

// Independent reading of the v5 sample: ops are `xla` nodes whose metrics.rawTime > 0, except
// "… and its duplicate(s)" groups, whose children are the ops.
inline void collect(const Value& node, std::map<std::string, ExpectedOp>& out, bool isRoot, std::string program = {})
{
    const std::string& name = node["name"].string();
    if (!isRoot && node.find("xla")) {
        if (name.ends_with(" and its duplicate(s)")) {
            for (const auto& child : node["children"].array())
                collect(child, out, false, program);
            return;
        }
        const double t = node["metrics"]["rawTime"].number();
        if (t > 0) {
            ExpectedOp& e = out[program + '\x1f' + name];
            e.rawTime += t;
            e.uncapped += node["metrics"]["uncappedFlops"].number();
            e.occurrences += static_cast<int64_t>(node["metrics"]["occurrences"].number());
        }
        return;
    }
    // Program nodes are named "jit_train_step(2041036616644817336)".
    if (!isRoot && name.ends_with(')') && name.find('(') != std::string::npos)
        program = name.substr(0, name.rfind('('));
    for (const auto& child : node["children"].array())
        collect(child, out, false, program);
}

} // namespace tpuscope::test
