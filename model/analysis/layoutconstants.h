// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Constants the three parts of layout.h share: the shape-text parser (layoutparser.cpp), the
// tiling maths (layouttiling.cpp) and the dimension semantics (layoutsemantics.cpp).

#include <cstdint>

namespace tpuscope::model::layout::detail {

// Deeply nested tuples/annotations in hostile text, and deep or cyclic HLO graphs from files,
// must not overflow the stack.
constexpr int kMaxNesting = 64;

// A "*" tile dimension: it combines the dims it covers instead of tiling them.
constexpr int64_t kCombineDimension = -1;

} // namespace tpuscope::model::layout::detail
