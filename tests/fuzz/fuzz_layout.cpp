// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: the HLO shape/layout text parsers and the padding math on what they accept.
#include "analysis/layout.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

using namespace tpuscope::model;

namespace {

void pad(const hlo::Shape& shape, int depth)
{
    if (depth > 64)
        return;
    if (shape.isTuple()) {
        for (const hlo::Shape& element : shape.tupleShapes)
            pad(element, depth + 1);
        return;
    }
    const layout::PaddingInfo info = layout::computePadding(shape);
    (void)info.usedOfTileText();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const layout::ShapeParseResult shape = layout::parseShape(text);
    if (shape.ok())
        pad(shape.shape, 0);
    std::string error;
    (void)layout::parseLayout(text, &error);
    const layout::ShapeParseResult line = layout::parseInstructionResultShape(text);
    if (line.ok())
        pad(line.shape, 0);
    return 0;
}
