// SPDX-License-Identifier: GPL-3.0-or-later
#include "updatewrite.h"

#include "../core/format.h"

#include <cstdio>
#include <string_view>
#include <vector>

namespace tpuscope::model {

namespace {

bool isUpdateOpcode(std::string_view opcode)
{
    return opcode == "dynamic-update-slice" || opcode == "scatter";
}

/// Operand index of the update in an update op (dynamic-update-slice: 1; scatter: the first of the
/// updates, after operands and indices, which is 2 for a single-operand scatter).
size_t updateOperandIndex(std::string_view opcode)
{
    return opcode == "scatter" ? 2 : 1;
}

/// The shapes of the operands listed in HLO text after "opcode(": "f32[1,8]{1,0} %a, s32[] %i, ...".
std::vector<hlo::Shape> operandShapesFromText(std::string_view text, std::string_view opcode)
{
    std::vector<hlo::Shape> shapes;
    const std::string open = std::string(opcode) + "(";
    size_t at = text.find(open);
    if (at == std::string_view::npos)
        return shapes;
    at += open.size();
    int depth = 0;
    size_t begin = at;
    for (size_t i = at; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '(' || c == '[' || c == '{')
            ++depth;
        else if ((c == ')' || c == ']' || c == '}') && depth > 0)
            --depth;
        else if ((c == ',' && depth == 0) || (c == ')' && depth == 0)) {
            std::string_view piece = text.substr(begin, i - begin);
            // Drop "/*index=5*/" comments and the operand name after the shape.
            if (size_t comment = piece.find("*/"); comment != std::string_view::npos)
                piece = piece.substr(comment + 2);
            while (!piece.empty() && piece.front() == ' ')
                piece.remove_prefix(1);
            if (size_t name = piece.find(" %"); name != std::string_view::npos)
                piece = piece.substr(0, name);
            layout::ShapeParseResult parsed = layout::parseShape(piece);
            shapes.push_back(parsed.ok() ? parsed.shape : hlo::Shape {});
            begin = i + 1;
            if (c == ')')
                break;
        }
    }
    return shapes;
}

/// Whether `update` written into `target` is thinner than the target's first tile in a tiled dim;
/// fills in the strided fields of `out`.
void findStride(UpdateWrite& out)
{
    const hlo::Shape& target = out.target;
    const hlo::Shape& update = out.update;
    if (target.isTuple() || update.isTuple() || !target.hasLayout || target.layout.tiles.empty()
        || target.dimensions.size() != update.dimensions.size())
        return;
    const auto& m2m = target.layout.minorToMajor;
    const auto& tile = target.layout.tiles.front().dimensions;
    if (m2m.size() != target.dimensions.size())
        return;
    // The first tile (t_n ... t_1) covers the tile.size() most-minor physical dims.
    double fill = 1;
    for (size_t k = 0; k < tile.size() && k < m2m.size(); ++k) {
        const int64_t extent = tile[tile.size() - 1 - k];
        const int64_t dim = m2m[k];
        if (extent <= 1 || dim < 0 || dim >= static_cast<int64_t>(update.dimensions.size()))
            continue;
        const int64_t written = update.dimensions[static_cast<size_t>(dim)];
        const int64_t whole = target.dimensions[static_cast<size_t>(dim)];
        const int64_t padded = (written + extent - 1) / extent * extent;
        if (padded > 0)
            fill *= static_cast<double>(written) / static_cast<double>(padded);
        if (written < extent && written < whole && !out.strided) {
            out.strided = true;
            out.dim = dim;
            out.tileExtent = extent;
            out.minorMost = k == 0;
        }
    }
    out.fill = fill;
}

std::optional<UpdateWrite> makeWrite(
    std::string opcode, std::string updateOp, const hlo::Shape& target, const hlo::Shape& update)
{
    if (target.isTuple() || update.isTuple() || target.dimensions.empty())
        return std::nullopt;
    UpdateWrite w;
    w.operandIndex = updateOperandIndex(opcode);
    w.opcode = std::move(opcode);
    w.updateOp = std::move(updateOp);
    w.target = target;
    w.update = update;
    w.updatePadding = layout::computePadding(update);
    findStride(w);
    return w;
}

/// Two decimals below 10 % ("2.95%"), one above: the advice's percentages.
std::string percentText(double fraction)
{
    return formatPercent(fraction, fraction < 0.1 && fraction > 0 ? 2 : 1);
}

} // namespace

std::string UpdateWrite::role() const
{
    return "update (operand " + std::to_string(operandIndex) + " of " + (updateOp.empty() ? opcode : updateOp) + ")";
}

std::optional<UpdateWrite> resolveUpdateWrite(
    const Profile& profile, OpId op, const hlo::Module* module, const hlo::Instruction* instruction)
{
    if (op >= profile.ops.size())
        return std::nullopt;
    if (module && instruction) {
        const hlo::Instruction* update = instruction;
        if (update->opcode == "fusion" && !update->calledComputationIds.empty())
            if (const hlo::Computation* fused = module->computation(update->calledComputationIds.front()))
                update = fused->root();
        if (!update || !isUpdateOpcode(update->opcode))
            return std::nullopt;
        const size_t k = updateOperandIndex(update->opcode);
        if (k >= update->operandIds.size())
            return std::nullopt;
        const hlo::Instruction* slice = module->instructionById(update->operandIds[k]);
        if (!slice)
            return std::nullopt;
        return makeWrite(update->opcode, update->name, update->shape, slice->shape);
    }
    const std::string& text = profile.str(profile.ops[op].longName);
    for (std::string_view opcode : {"dynamic-update-slice", "scatter"}) {
        if (text.find(std::string(" ") + std::string(opcode) + "(") == std::string::npos)
            continue;
        const layout::ShapeParseResult target = layout::parseInstructionResultShape(text);
        const std::vector<hlo::Shape> operands = operandShapesFromText(text, opcode);
        const size_t k = updateOperandIndex(opcode);
        if (!target.ok() || k >= operands.size())
            return std::nullopt;
        return makeWrite(std::string(opcode), profile.str(profile.ops[op].name), target.shape, operands[k]);
    }
    return std::nullopt;
}

std::string updateWriteText(const UpdateWrite& w)
{
    std::string text = "writes " + hlo::shapeToString(w.update) + " into " + hlo::shapeToString(w.target);
    if (!w.strided || w.dim < 0 || w.dim >= static_cast<int64_t>(w.target.dimensions.size()))
        return text + ", whole tile rows at a time";
    char buffer[512];
    std::snprintf(buffer, sizeof buffer,
        ": dimension %lld (size %lld, the stacked axis) sits in the tile's %s, and each update fills %lld of the %lld "
        "%s of every tile it writes (%s of the tile), so the writes are strided",
        static_cast<long long>(w.dim), static_cast<long long>(w.target.dimensions[static_cast<size_t>(w.dim)]),
        w.minorMost ? "most-minor (lane) dimension" : "second-minor (sublane) dimension",
        static_cast<long long>(w.update.dimensions[static_cast<size_t>(w.dim)]), static_cast<long long>(w.tileExtent),
        w.minorMost ? "lanes" : "rows", percentText(w.fill).c_str());
    return text + buffer;
}

} // namespace tpuscope::model
