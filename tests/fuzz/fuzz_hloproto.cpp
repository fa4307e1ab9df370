// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: decodeHloProto, then the layout analyses that walk the decoded module
// (padding of every result shape, dimension semantics, compute-core search through fusions).
#include "analysis/layout.h"
#include "loader/hloconvert.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace tpuscope::model;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::string error;
    auto module = decodeHloProto(std::string_view(reinterpret_cast<const char*>(data), size), error);
    if (!module)
        return 0;
    for (const hlo::Computation& computation : module->computations) {
        for (const hlo::Instruction& instruction : computation.instructions) {
            if (!instruction.shape.isTuple())
                (void)layout::computePadding(instruction.shape, layout::inferOutputSemantics(*module, instruction));
            (void)layout::findComputeCore(*module, instruction);
            for (size_t i = 0; i < instruction.operandIds.size() && i < 4; ++i)
                (void)layout::inferOperandSemantics(*module, instruction, i);
        }
    }
    return 0;
}
