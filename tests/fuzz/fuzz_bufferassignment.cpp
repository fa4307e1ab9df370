// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: decodeBufferAssignment (HloProto field 3), then the memory analysis over it
// with a small fixed module (array, tuple and nested-tuple instructions with ids 0..7), so that
// SHARE_WITH chains, frees, shape indices and colours from the fuzzer all reach the heap simulation.
#include "analysis/memory.h"
#include "loader/bufferassignment.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace tpuscope::model;

namespace {

const hlo::Module& fixedModule()
{
    static const hlo::Module module = [] {
        hlo::Module m;
        m.name = "fuzz";
        hlo::Computation c;
        c.name = "main";
        for (int64_t id = 0; id < 8; ++id) {
            hlo::Instruction in;
            in.id = id;
            in.name = "op" + std::to_string(id);
            in.shape.elementType = id % 2 ? hlo::PrimitiveType::BF16 : hlo::PrimitiveType::F32;
            in.shape.dimensions = {16, id + 1};
            in.shape.hasLayout = true;
            in.shape.layout.minorToMajor = {0, 1};
            in.shape.layout.tiles = {hlo::Tile {{8, 128}}};
            if (id >= 6) { // a tuple, and a tuple holding a tuple
                hlo::Shape element = in.shape;
                in.shape = {};
                in.shape.elementType = hlo::PrimitiveType::Tuple;
                in.shape.tupleShapes = {element, element};
                if (id == 7) {
                    hlo::Shape inner = in.shape;
                    in.shape.tupleShapes.push_back(inner);
                }
            }
            c.instructions.push_back(std::move(in));
        }
        m.computations.push_back(std::move(c));
        m.buildIndex();
        return m;
    }();
    return module;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::string error;
    auto assignment = decodeBufferAssignment(std::string_view(reinterpret_cast<const char*>(data), size), error);
    if (!assignment)
        return 0;
    hlo::Module module = fixedModule();
    module.buildIndex();
    module.bufferAssignment = assignment;
    for (int64_t color : {int64_t {0}, int64_t {1}}) {
        const ModuleMemory memory = analyzeModuleMemory(module, color);
        for (const auto& buffer : memory.buffersAtPeak)
            for (const auto& dim : buffer.paddedDims)
                (void)dim.text();
    }
    return 0;
}
