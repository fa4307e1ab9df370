// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Whose code an op is: the framework op (TF/JAX op name) and the source line that produced it,
// from whichever the file records — event stats (`tf_op`, `source`), op_profile `provenance` /
// `sourceInfo`, or the HLO proto's OpMetadata joined by program and instruction name.

#include "../core/profile.h"

#include <string>
#include <string_view>

namespace tpuscope::model {

/// A framework op name without its trailing ":Type" ("unet/conv2d_18/Conv2D:Conv2D" ->
/// "unet/conv2d_18/Conv2D", JAX "jit(f)/add:" -> "jit(f)/add"). A colon inside brackets
/// ("dot_general[precision=a:b]") is part of the name and stays.
std::string frameworkOpName(std::string_view tfOp);

struct OpAttribution
{
    std::string frameworkOp; // without ":Type"; empty when the file records none
    std::string source; // "file.py:87" (or just the file); empty when unknown
};

/// Event/op_profile stats first, then the HLO instruction's metadata (op_name, source_file/line).
OpAttribution opAttribution(const Profile& profile, OpId op);

/// "unet/conv2d_18/Conv2D, unet.py:87", the framework op or source alone, or empty. For reading, long
/// JAX parameter lists are shortened: "mlp/wi_0/dot_general[dimension_numbers=...]" -> "mlp/wi_0/dot_general[…]".
std::string attributionText(const OpAttribution& attribution);

} // namespace tpuscope::model
