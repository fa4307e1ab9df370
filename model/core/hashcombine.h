// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>

namespace tpuscope::model {

/// `seed` with `value` mixed in (boost::hash_combine's formula on 64-bit words): how the hashes of
/// composite keys combine their fields' hashes.
inline std::size_t hashCombine(std::size_t seed, std::size_t value)
{
    return seed ^ (value + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2));
}

} // namespace tpuscope::model
