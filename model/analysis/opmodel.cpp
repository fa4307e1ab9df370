// SPDX-License-Identifier: GPL-3.0-or-later
#include "opmodel.h"

#include "attribution.h"
#include "core/hashcombine.h"
#include "layout.h"
#include "opgroups.h"
#include "padding.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <unordered_map>

namespace tpuscope::model {

const char* ratedAgainstName(RatedAgainst against)
{
    switch (against) {
    case RatedAgainst::Roofline:
        return "roofline";
    case RatedAgainst::HostLink:
        return "host link";
    case RatedAgainst::Ici:
        return "ICI";
    case RatedAgainst::OnChip:
        return "on-chip memory";
    case RatedAgainst::Nothing:
        break;
    }
    return "nothing";
}

namespace {

constexpr int kHbmSpace = 0; // S(0), usually omitted
constexpr int kVmemSpace = 1; // S(1)
constexpr int kHostSpace = 5; // S(5) (FORMATS.md §6.2)

bool startsWith(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}

struct ArrayScan
{
    bool host = false;
    double vmemBytes = 0;
    double largestBytes = 0;
    double largestLogicalBytes = 0;
    std::vector<std::pair<std::string, double>> parameters;
};

int memorySpaceOf(const hlo::Shape& shape)
{
    return shape.hasLayout ? static_cast<int>(shape.layout.memorySpace) : kHbmSpace;
}

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
    scan.largestLogicalBytes = std::max(scan.largestLogicalBytes, static_cast<double>(padding.logicalBytes));
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

/// "copy-start.4" -> ("copy-done.4", Start); names without "-start"/"-done" are not async halves.
/// Only a numeric ".N" suffix may follow the role ("copy-start.4", not "start-done-ish.fusion"),
/// so the test looks at the name's end: a search through the whole name cost seconds for the
/// 200 MB names of hostile files.
AsyncRole asyncRoleOf(std::string_view name, std::string& partnerName)
{
    std::string_view stem = name;
    std::string_view suffix;
    if (const size_t dot = name.find_last_not_of("0123456789"); dot != std::string_view::npos && name[dot] == '.') {
        stem = name.substr(0, dot);
        suffix = name.substr(dot);
    }
    for (auto [from, to, role] :
        {std::tuple {"-start", "-done", AsyncRole::Start}, std::tuple {"-done", "-start", AsyncRole::Done}}) {
        const std::string_view roleText = from;
        if (stem.size() <= roleText.size() || !stem.ends_with(roleText))
            continue;
        partnerName = std::string(stem.substr(0, stem.size() - roleText.size())) + to + std::string(suffix);
        return role;
    }
    return AsyncRole::None;
}

/// The collective an opcode, category or name stands for ("all-gather-start", "all-reduce fusion",
/// "all-reduce-scatter fusion", "async-collective-done.3").
CollectiveKind collectiveOf(std::string_view text)
{
    if (startsWith(text, "async-collective"))
        return CollectiveKind::Fused;
    if (startsWith(text, "all-reduce-scatter") || startsWith(text, "reduce-scatter"))
        return CollectiveKind::ReduceScatter;
    static constexpr std::array<std::pair<std::string_view, CollectiveKind>, 4> kinds {{
        {"all-reduce", CollectiveKind::AllReduce},
        {"all-gather", CollectiveKind::AllGather},
        {"all-to-all", CollectiveKind::AllToAll},
        {"collective-permute", CollectiveKind::CollectivePermute},
    }};
    for (const auto& [prefix, kind] : kinds)
        if (startsWith(text, prefix))
            return kind;
    return CollectiveKind::None;
}

bool isControlOpcode(std::string_view opcode)
{
    static constexpr std::array<std::string_view, 16> control {"while", "conditional", "call", "send", "send-done",
        "recv", "recv-done", "after-all", "tuple", "get-tuple-element", "parameter", "partition-id", "replica-id",
        "async-start", "async-update", "async-done"};
    return std::find(control.begin(), control.end(), opcode) != control.end();
}

bool isDataFormatting(std::string_view category, std::string_view opcode)
{
    for (std::string_view kind : {"data formatting", "copy", "transpose", "reshape"})
        if (category == kind || opcode == kind)
            return true;
    return false;
}

/// The opcode from the op's name when nothing better says it: "copy-start.4" -> "copy-start".
std::string_view opcodeFromName(std::string_view name)
{
    return name.substr(0, name.find('.'));
}

/// Memory spaces of a copy's destination and source from its HLO: a copy-start's result is the
/// tuple (destination, source, context), a copy-done's result is the destination and its operand
/// the start's tuple, a plain copy's result the destination and its operand the source.
struct CopySpaces
{
    int destination = -1;
    int source = -1;
    double destinationBytes = 0;
};

CopySpaces copySpaces(const Profile& profile, const OpInfo& op, const hlo::Instruction* instruction,
    std::string_view opcode, std::string_view text)
{
    CopySpaces spaces;
    hlo::Shape result;
    std::vector<hlo::Shape> operands;
    if (instruction) {
        result = instruction->shape;
        operands = instruction->operandShapes;
    } else if (!text.empty()) {
        const layout::ShapeParseResult parsed = layout::parseInstructionResultShape(text);
        if (parsed.ok())
            result = parsed.shape;
        // The first operand shape follows the opcode's "(".
        const size_t call = text.find(std::string(opcode) + "(");
        if (call != std::string_view::npos) {
            std::string_view rest = text.substr(call + opcode.size() + 1);
            const layout::ShapeParseResult operand = layout::parseShape(
                rest.substr(0, rest.find(" %") == std::string_view::npos ? rest.size() : rest.find(" %")));
            if (operand.ok())
                operands.push_back(operand.shape);
        }
    } else if (op.shapeWithLayout != 0) {
        const layout::ShapeParseResult parsed = layout::parseShape(profile.str(op.shapeWithLayout));
        if (parsed.ok())
            result = parsed.shape;
    }
    auto arrayBytes = [](const hlo::Shape& s) { return static_cast<double>(layout::computePadding(s).logicalBytes); };
    if (opcode == "copy-start") {
        if (result.isTuple() && result.tupleShapes.size() >= 2) {
            spaces.destination = memorySpaceOf(result.tupleShapes[0]);
            spaces.source = memorySpaceOf(result.tupleShapes[1]);
            spaces.destinationBytes = arrayBytes(result.tupleShapes[0]);
        }
        return spaces;
    }
    if (result.elementType != hlo::PrimitiveType::Invalid && !result.isTuple()) {
        spaces.destination = memorySpaceOf(result);
        spaces.destinationBytes = arrayBytes(result);
    }
    if (!operands.empty()) {
        const hlo::Shape& operand = operands.front();
        if (operand.isTuple() && operand.tupleShapes.size() >= 2) // copy-done((dst, src, ctx))
            spaces.source = memorySpaceOf(operand.tupleShapes[1]);
        else if (!operand.isTuple() && operand.elementType != hlo::PrimitiveType::Invalid)
            spaces.source = memorySpaceOf(operand);
    }
    return spaces;
}

TransferDirection directionOf(const CopySpaces& spaces)
{
    if (spaces.destination == kHostSpace && spaces.source != kHostSpace)
        return TransferDirection::ToHost;
    if (spaces.source == kHostSpace && spaces.destination != kHostSpace)
        return TransferDirection::ToDevice;
    return TransferDirection::None;
}

RatedAgainst ratedAgainstOf(const OpTraits& t)
{
    switch (t.opClass) {
    case OpClass::Compute:
    case OpClass::ComputeFusion:
    case OpClass::CustomKernel:
    case OpClass::DataFormatting:
        return RatedAgainst::Roofline;
    case OpClass::CopyStart:
    case OpClass::CopyDone:
        // A copy into VMEM or another on-chip space runs against on-chip bandwidth; only a copy whose
        // destination is HBM (or unknown, which is HBM in practice) is HBM traffic.
        return t.memorySpace > kHbmSpace ? RatedAgainst::OnChip : RatedAgainst::Roofline;
    case OpClass::HostTransferStart:
    case OpClass::HostTransferDone:
    case OpClass::HostTransfer:
        return RatedAgainst::HostLink;
    case OpClass::SyncCollective:
    case OpClass::AsyncCollectiveStart:
    case OpClass::AsyncCollectiveDone:
        return RatedAgainst::Ici;
    case OpClass::Infeed:
    case OpClass::Outfeed:
    case OpClass::Control:
    case OpClass::Unattributed:
        break;
    }
    return RatedAgainst::Nothing;
}

/// Decides an op's class from its recorded class, else its HLO opcode, category and name.
void classify(const Profile& profile, const OpInfo& op, const hlo::Instruction* instruction, std::string_view text,
    const ArrayScan& scan, OpTraits& t)
{
    const std::string& name = profile.str(op.name);
    const std::string& category = profile.str(op.category);
    std::string_view opcode = instruction ? std::string_view(instruction->opcode) : hloTextOpcode(text);
    if (opcode.empty())
        opcode = opcodeFromName(name);

    t.customKernel
        = category == "custom-call" || opcode == "custom-call" || text.find(" custom-call(") != std::string_view::npos;
    if (op.recordedKind) {
        t.opClass = op.recordedKind->opClass;
        t.collective = op.recordedKind->collective;
        t.direction = op.recordedKind->direction;
        t.memorySpace = op.recordedKind->memorySpace;
        t.transferBytes = op.recordedKind->transferBytes;
        t.customKernel = t.customKernel || t.opClass == OpClass::CustomKernel;
        return;
    }
    if (!op.isXlaOp) {
        t.opClass = OpClass::Control; // program runs, steps and host events: not XLA ops
        return;
    }
    if (category == "unattributed" || category == "IDLE" || startsWith(name, "(not broken down)")) {
        t.opClass = OpClass::Unattributed;
        return;
    }
    if (startsWith(opcode, "infeed") || startsWith(category, "infeed")) {
        t.opClass = OpClass::Infeed;
        return;
    }
    if (startsWith(opcode, "outfeed") || startsWith(category, "outfeed")) {
        t.opClass = OpClass::Outfeed;
        return;
    }
    if (startsWith(category, "host send") || startsWith(category, "host recv")) {
        t.opClass = OpClass::HostTransfer;
        t.direction = startsWith(category, "host send") ? TransferDirection::ToHost : TransferDirection::ToDevice;
        return;
    }
    // Collectives: by opcode, else category ("all-reduce-scatter fusion"), else name; a generic
    // async-start wrapping a collective names it in its called computation.
    CollectiveKind collective = collectiveOf(opcode);
    if (collective == CollectiveKind::None)
        collective = collectiveOf(category);
    if (collective == CollectiveKind::None)
        collective = collectiveOf(name);
    if (collective == CollectiveKind::None && (opcode == "async-start" || opcode == "async-done")) {
        const size_t calls = text.find("calls=");
        if (calls != std::string_view::npos) {
            const std::string_view called = text.substr(calls + 6);
            for (std::string_view kind :
                {"all-gather", "all-reduce", "reduce-scatter", "all-to-all", "collective-permute"})
                if (called.find(kind) != std::string_view::npos && called.find(kind) < called.find(' ')) {
                    collective = collectiveOf(kind);
                    break;
                }
        }
    }
    const bool startHalf = opcode.ends_with("-start") || t.async == AsyncRole::Start;
    const bool doneHalf = opcode.ends_with("-done") || t.async == AsyncRole::Done;
    if (collective != CollectiveKind::None) {
        t.collective = collective;
        t.opClass = startHalf ? OpClass::AsyncCollectiveStart
            : doneHalf        ? OpClass::AsyncCollectiveDone
                              : OpClass::SyncCollective;
        return;
    }
    if (t.customKernel) {
        t.opClass = OpClass::CustomKernel;
        return;
    }
    const bool asyncCopy
        = opcode == "copy-start" || opcode == "copy-done" || category == "copy-start" || category == "copy-done";
    if (asyncCopy || isDataFormatting(category, opcode)) {
        const std::string_view copyOpcode = asyncCopy
            ? (opcode == "copy-start" || category == "copy-start" ? std::string_view("copy-start") : "copy-done")
            : opcode;
        const CopySpaces spaces = copySpaces(profile, op, instruction, copyOpcode, text);
        t.memorySpace = spaces.destination;
        t.transferBytes = spaces.destinationBytes;
        t.direction = directionOf(spaces);
        const bool host = t.direction != TransferDirection::None || (scan.host && !asyncCopy);
        if (asyncCopy) {
            const bool start = copyOpcode == "copy-start";
            t.opClass = host ? (start ? OpClass::HostTransferStart : OpClass::HostTransferDone)
                             : (start ? OpClass::CopyStart : OpClass::CopyDone);
        } else {
            t.opClass = host ? OpClass::HostTransfer : OpClass::DataFormatting;
        }
        return;
    }
    if (isControlOpcode(opcode) || isControlOpcode(category)) {
        t.opClass = OpClass::Control;
        return;
    }
    t.opClass = isFusionCategory(category) || opcode == "fusion" ? OpClass::ComputeFusion : OpClass::Compute;
}

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
        return hashCombine(std::hash<std::string_view> {}(key.name),
            std::hash<uint64_t> {}(key.programId * 2 + (key.hasProgramId ? 1 : 0)));
    }
};

/// The two halves of a pair describe one transfer: what one half's HLO says holds for both (the
/// done half of a copy often has only the device-side result shape).
void sharePairFacts(OpTraits& a, const OpTraits& b)
{
    if (a.direction == TransferDirection::None)
        a.direction = b.direction;
    if (a.memorySpace < 0)
        a.memorySpace = b.memorySpace;
    if (a.transferBytes <= 0)
        a.transferBytes = b.transferBytes;
    if (a.collective == CollectiveKind::None)
        a.collective = b.collective;
    const bool start = a.async == AsyncRole::Start;
    if (b.isHostTransfer() || a.direction != TransferDirection::None)
        a.opClass = start ? OpClass::HostTransferStart : OpClass::HostTransferDone;
    else if (b.isCollective() || a.collective != CollectiveKind::None)
        a.opClass = start ? OpClass::AsyncCollectiveStart : OpClass::AsyncCollectiveDone;
    else if (b.isAsyncCopy() && !a.isAsyncCopy())
        a.opClass = start ? OpClass::CopyStart : OpClass::CopyDone;
}

} // namespace

bool isFusionCategory(std::string_view category)
{
    return category.ends_with(" fusion") || category == "fusion";
}

std::string_view hloTextOpcode(std::string_view text)
{
    const size_t equals = text.find(" = ");
    if (equals == std::string_view::npos)
        return {};
    size_t i = equals + 3;
    // The result shape: a tuple in balanced parentheses, or one token.
    if (i < text.size() && text[i] == '(') {
        int depth = 0;
        for (; i < text.size(); ++i) {
            if (text[i] == '(')
                ++depth;
            else if (text[i] == ')' && --depth == 0) {
                ++i;
                break;
            }
        }
    } else {
        while (i < text.size() && text[i] != ' ')
            ++i;
    }
    while (i < text.size() && text[i] == ' ')
        ++i;
    const size_t begin = i;
    while (i < text.size()
        && (std::islower(static_cast<unsigned char>(text[i])) || text[i] == '-'
            || std::isdigit(static_cast<unsigned char>(text[i]))))
        ++i;
    if (i == begin || i >= text.size() || text[i] != '(')
        return {};
    return text.substr(begin, i - begin);
}

std::string opProgramLabel(const Profile& profile, const OpInfo& op)
{
    if (op.program != kNone)
        return profile.programs[op.program].name;
    if (op.hasProgramId)
        return "program " + std::to_string(op.programId);
    return {};
}

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

double hbmBytesPerOccurrence(const OpInfo& op, const OpTraits& traits)
{
    if (traits.costSource == CostSource::Shapes)
        return traits.shapeBytes;
    return op.hbmBytes >= 0 ? op.hbmBytes : std::max(0.0, op.bytesAccessed - traits.vmemBytes);
}

double flopsPerOccurrence(const OpInfo& op, const OpTraits& traits)
{
    return traits.costSource == CostSource::Shapes ? traits.shapeFlops : op.flops;
}

const char* costSourceName(CostSource source)
{
    switch (source) {
    case CostSource::File:
        return "file";
    case CostSource::Shapes:
        return "shapes";
    case CostSource::None:
        break;
    }
    return "none";
}

namespace {

/// A custom kernel without cost records whose HLO text shows a matmul gets its FLOPs and bytes from
/// its shapes, marked as estimated (CostSource::Shapes).
void estimateKernelCost(const Profile& profile, OpId id, std::string_view text, OpTraits& t)
{
    if (t.costKnown || !t.customKernel || text.empty())
        return;
    const OpInfo& op = profile.ops[id];
    const std::optional<KernelCost> cost
        = matmulKernelCost(text, profile.str(op.name), opAttribution(profile, id).frameworkOp);
    if (!cost)
        return;
    t.costSource = CostSource::Shapes;
    t.shapeFlops = cost->flops;
    t.shapeBytes = cost->bytes;
    t.costKnown = t.flopsKnown = t.bytesKnown = true;
}

} // namespace

OpModel buildOpModel(const Profile& profile)
{
    OpModel model;
    model.ops.resize(profile.ops.size());
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
        OpTraits& t = model.ops[id];
        const hlo::Instruction* instruction = profile.instructionFor(op);
        const std::string_view text
            = op.longName != 0 ? std::string_view(profile.str(op.longName)) : std::string_view();

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
        } else if (!text.empty()) {
            scanHloText(text, scan);
        } else if (op.shapeWithLayout != 0) {
            scanHloText(profile.str(op.shapeWithLayout), scan);
        }
        t.vmemBytes = scan.vmemBytes;
        t.largestArrayBytes = scan.largestBytes;
        t.largestArrayLogicalBytes = scan.largestLogicalBytes;
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
        classify(profile, op, instruction, text, scan, t);
        // A producer that ran its cost analysis on an op records what it found; a field it leaves out
        // is a zero (proto3 drops zeros). Custom kernels that record all zeros (model_flops =
        // bytes_accessed = 0) know nothing. A file whose schema has no bytes at all (TF1 op_profile)
        // knows FLOPs only.
        const bool anyCost = op.flops > 0 || op.modelFlops > 0 || op.bytesAccessed > 0 || op.hbmBytes > 0;
        t.costKnown = anyCost || ((op.flopsRecorded || op.bytesRecorded) && !t.customKernel);
        t.flopsKnown = t.costKnown;
        t.bytesKnown = t.costKnown && !profile.bytesNotRecorded;
        t.costSource = t.costKnown ? CostSource::File : CostSource::None;
        estimateKernelCost(profile, id, text, t);
        t.groupKey = instruction && text.empty() && profile.hloFor(op)
            ? opGroupKey(profile.str(op.name), *profile.hloFor(op), *instruction)
            : opGroupKey(profile.str(op.name), text, text.empty() ? opAttribution(profile, id).frameworkOp : "");
    }
    for (OpId id = 0; id < model.ops.size(); ++id) {
        OpTraits& t = model.ops[id];
        if (t.partner != kNone && !profile.ops[id].recordedKind)
            sharePairFacts(t, model.ops[t.partner]);
    }
    for (OpTraits& t : model.ops)
        t.ratedAgainst = ratedAgainstOf(t);
    return model;
}

} // namespace tpuscope::model
