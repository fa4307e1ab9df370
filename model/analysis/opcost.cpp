// SPDX-License-Identifier: GPL-3.0-or-later
#include "opcost.h"

#include "layout.h"
#include "padding.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

namespace tpuscope::model {

namespace {

constexpr int64_t kVmemSpace = 1; // S(1)
constexpr int64_t kHostSpace = 5; // S(5)

struct ArrayScan
{
    bool host = false;
    double vmemBytes = 0;
    double largestBytes = 0;
    std::vector<std::pair<std::string, double>> parameters;
};

/// Padded bytes of an array in HBM (memory space 0); 0 for tuples, tokens and other spaces.
double hbmArrayBytes(const hlo::Shape& shape)
{
    if (shape.isTuple() || shape.elementType == hlo::PrimitiveType::Token
        || shape.elementType == hlo::PrimitiveType::Invalid || (shape.hasLayout && shape.layout.memorySpace != 0))
        return 0;
    const layout::PaddingInfo padding = layout::computePadding(shape);
    return static_cast<double>(padding.valid ? padding.paddedBytes : padding.logicalBytes);
}

/// HLO text names entry parameters "%param.12", "%Arg_3.4" or "%p0" (fused computations' own
/// parameters never appear as operands of a top-level op).
bool isParameterName(std::string_view name)
{
    if (name.starts_with("param") || name.starts_with("Arg_") || name.starts_with("arg"))
        return true;
    return name.size() > 1 && name[0] == 'p' && std::all_of(name.begin() + 1, name.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
    });
}

void scanArray(const hlo::Shape& shape, ArrayScan& scan)
{
    if (shape.isTuple()) {
        for (const hlo::Shape& element : shape.tupleShapes)
            scanArray(element, scan);
        return;
    }
    if (shape.elementType == hlo::PrimitiveType::Token || shape.elementType == hlo::PrimitiveType::Invalid)
        return;
    const layout::PaddingInfo padding = layout::computePadding(shape);
    const double bytes = static_cast<double>(padding.valid ? padding.paddedBytes : padding.logicalBytes);
    scan.largestBytes = std::max(scan.largestBytes, bytes);
    if (!shape.hasLayout)
        return;
    if (shape.layout.memorySpace == kHostSpace)
        scan.host = true;
    else if (shape.layout.memorySpace == kVmemSpace)
        scan.vmemBytes += bytes;
}

bool isTypeChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

/// Every array shape written in a line of HLO text ("bf16[8,128]{1,0:T(8,128)(2,1)S(1)}"), found by
/// its element type and parsed with the layout parser. Shapes the parser refuses are skipped: the
/// traits are evidence, and a shape we cannot read is no evidence.
void scanHloText(std::string_view text, ArrayScan& scan)
{
    for (size_t open = text.find('['); open != std::string_view::npos; open = text.find('[', open + 1)) {
        size_t begin = open;
        while (begin > 0 && isTypeChar(text[begin - 1]))
            --begin;
        if (begin == open
            || hlo::primitiveTypeFromName(text.substr(begin, open - begin)) == hlo::PrimitiveType::Invalid)
            continue;
        const size_t close = text.find(']', open);
        if (close == std::string_view::npos)
            return;
        size_t end = close + 1;
        if (end < text.size() && text[end] == '{') {
            int depth = 0;
            for (; end < text.size(); ++end) {
                if (text[end] == '{')
                    ++depth;
                else if (text[end] == '}' && --depth == 0) {
                    ++end;
                    break;
                }
            }
        }
        const layout::ShapeParseResult parsed = layout::parseShape(text.substr(begin, end - begin));
        if (!parsed.ok())
            continue;
        scanArray(parsed.shape, scan);
        // An operand is written "shape %name": keep the program's parameters for the footprint.
        size_t at = end;
        while (at < text.size() && text[at] == ' ')
            ++at;
        if (at < text.size() && text[at] == '%') {
            size_t nameEnd = at + 1;
            while (nameEnd < text.size()
                && (isTypeChar(text[nameEnd]) || text[nameEnd] == '.' || text[nameEnd] == '_' || text[nameEnd] == '-'))
                ++nameEnd;
            const std::string_view name = text.substr(at + 1, nameEnd - at - 1);
            if (isParameterName(name))
                if (const double bytes = hbmArrayBytes(parsed.shape); bytes > 0)
                    scan.parameters.emplace_back(std::string(name), bytes);
        }
    }
}

/// "copy-start.4" -> ("copy", ".4", Start); names without "-start"/"-done" are not async halves.
AsyncRole asyncRoleOf(std::string_view name, std::string& partnerName)
{
    for (auto [from, to, role] :
        {std::tuple {"-start", "-done", AsyncRole::Start}, std::tuple {"-done", "-start", AsyncRole::Done}}) {
        const size_t at = name.rfind(from);
        if (at == std::string_view::npos || at == 0)
            continue;
        const std::string_view rest = name.substr(at + std::char_traits<char>::length(from));
        // Only a numeric ".N" suffix may follow: "copy-start.4", not "start-done-ish.fusion".
        if (!rest.empty()
            && (rest[0] != '.' || !std::all_of(rest.begin() + 1, rest.end(), [](char c) { return std::isdigit(c); })))
            continue;
        partnerName = std::string(name.substr(0, at)) + to + std::string(rest);
        return role;
    }
    return AsyncRole::None;
}

bool isCustomKernel(const Profile& profile, const OpInfo& op, const hlo::Instruction* instruction)
{
    if (profile.str(op.category) == "custom-call")
        return true;
    if (instruction && instruction->opcode == "custom-call")
        return true;
    const std::string& text = profile.str(op.longName);
    return text.find(" custom-call(") != std::string::npos;
}

bool isCollective(std::string_view name, std::string_view category)
{
    for (std::string_view kind :
        {"all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute", "async-collective"})
        if (name.starts_with(kind) || category.find(kind) != std::string_view::npos)
            return true;
    return false;
}

} // namespace

std::string opHloText(const Profile& profile, OpId id)
{
    const OpInfo& op = profile.ops[id];
    if (op.longName != 0 && !profile.str(op.longName).empty())
        return profile.str(op.longName);
    if (const hlo::Module* module = profile.hloFor(op))
        if (const hlo::Instruction* instruction = module->instruction(profile.str(op.name)))
            return instructionSummary(*module, *instruction);
    return {};
}

namespace {

/// An op's identity for finding its async partner: its program and its name (a view into the
/// profile's string table, or into the partner name being looked up).
struct ProgramAndName
{
    uint64_t programId = 0;
    bool hasProgramId = false;
    std::string_view name;
    bool operator==(const ProgramAndName&) const = default;
};

struct ProgramAndNameHash
{
    size_t operator()(const ProgramAndName& key) const
    {
        const size_t h = std::hash<std::string_view> {}(key.name);
        return h
            ^ (std::hash<uint64_t> {}(key.programId * 2 + (key.hasProgramId ? 1 : 0)) + 0x9e3779b97f4a7c15ull + (h << 6)
                + (h >> 2));
    }
};

} // namespace

std::vector<OpCostTraits> classifyOpCosts(const Profile& profile)
{
    std::vector<OpCostTraits> traits(profile.ops.size());
    // Keys view the profile's interned names: a copy of every op name here was a third copy of a
    // big name string (issue 18), next to the input and the profile's own.
    std::unordered_map<ProgramAndName, OpId, ProgramAndNameHash> byProgramAndName;
    byProgramAndName.reserve(profile.ops.size());
    auto key = [](const OpInfo& op, std::string_view name) {
        return ProgramAndName {op.programId, op.hasProgramId, name};
    };
    for (OpId id = 0; id < profile.ops.size(); ++id)
        byProgramAndName.emplace(key(profile.ops[id], profile.str(profile.ops[id].name)), id);

    for (OpId id = 0; id < profile.ops.size(); ++id) {
        const OpInfo& op = profile.ops[id];
        OpCostTraits& t = traits[id];
        t.costKnown = op.flops > 0 || op.modelFlops > 0 || op.bytesAccessed > 0 || op.hbmBytes > 0;
        const hlo::Instruction* instruction = profile.instructionFor(op);
        t.customKernel = isCustomKernel(profile, op, instruction);
        t.collective = isCollective(profile.str(op.name), profile.str(op.category));

        // One source of shapes per op, so that no array is counted twice: the HLO instruction
        // (result and operands), else the producer's HLO text, else its result shape.
        ArrayScan scan;
        if (instruction) {
            scanArray(instruction->shape, scan);
            if (!instruction->operandShapes.empty()) {
                for (const hlo::Shape& operand : instruction->operandShapes)
                    scanArray(operand, scan);
            } else if (const hlo::Module* module = profile.hloFor(op)) {
                for (int64_t operandId : instruction->operandIds)
                    if (const hlo::Instruction* operand = module->instructionById(operandId))
                        scanArray(operand->shape, scan);
            }
            if (const hlo::Module* module = profile.hloFor(op)) {
                const hlo::Computation* entry = module->computation(module->entryComputationId);
                for (int64_t operandId : instruction->operandIds) {
                    const hlo::Instruction* operand = module->instructionById(operandId);
                    if (!operand || operand->opcode != "parameter" || !entry || !entry->findInstruction(operandId))
                        continue;
                    if (const double bytes = hbmArrayBytes(operand->shape); bytes > 0)
                        scan.parameters.emplace_back(operand->name, bytes);
                }
            }
        } else if (op.longName != 0 && !profile.str(op.longName).empty()) {
            scanHloText(profile.str(op.longName), scan);
        } else if (op.shapeWithLayout != 0) {
            scanHloText(profile.str(op.shapeWithLayout), scan);
        }
        t.hostTransfer = scan.host;
        t.vmemBytes = scan.vmemBytes;
        t.largestArrayBytes = scan.largestBytes;
        t.hbmParameters = std::move(scan.parameters);

        std::string partnerName;
        t.async = asyncRoleOf(profile.str(op.name), partnerName);
        if (t.async != AsyncRole::None) {
            auto it = byProgramAndName.find(key(op, partnerName));
            if (it != byProgramAndName.end())
                t.partner = it->second;
            else
                t.async = AsyncRole::None; // a lone half is an ordinary op
        }
    }
    // A pair moves data to or from the host when either half names host memory (the done half of a
    // copy often has only the device-side result shape).
    for (OpId id = 0; id < traits.size(); ++id)
        if (traits[id].partner != kNone && traits[traits[id].partner].hostTransfer)
            traits[id].hostTransfer = true;
    return traits;
}

} // namespace tpuscope::model
