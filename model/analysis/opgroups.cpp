// SPDX-License-Identifier: GPL-3.0-or-later
#include "opgroups.h"

#include "layout.h"
#include "opbreakdown.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace tpuscope::model {

namespace op_groups {

/// FNV-1a, 64 bits: a stable key (the same on every run and machine).
struct Fnv
{
    uint64_t h = 1469598103934665603ull;
    void add(char c)
    {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    void add(std::string_view text)
    {
        for (char c : text)
            add(c);
        add('\x1f'); // a separator, so ("ab", "c") and ("a", "bc") differ
    }
};

bool isDigit(char c)
{
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

bool isNameChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-';
}

/// The HLO text without what differs between per-layer copies of an op: instruction names
/// ("%fusion.12"), metadata={...}, channel ids and memory spaces ("S(1)": where the compiler placed
/// one copy's operand).
void addNormalizedHlo(Fnv& fnv, std::string_view text)
{
    constexpr std::string_view kMetadata = "metadata={";
    constexpr std::string_view kChannel = "channel_id=";
    for (size_t i = 0; i < text.size(); ++i) {
        if (text.compare(i, kChannel.size(), kChannel) == 0 || text.compare(i, 2, "S(") == 0) {
            i += text[i] == 'S' ? 2 : kChannel.size();
            while (i < text.size() && isDigit(text[i]))
                ++i;
            if (i < text.size() && text[i] != ')')
                fnv.add(text[i]);
            continue;
        }
        if (text.compare(i, 2, ", ") == 0 && text.compare(i + 2, kMetadata.size(), kMetadata) == 0)
            i += 2; // the separator goes with the metadata
        if (text[i] == '%') {
            while (i + 1 < text.size() && isNameChar(text[i + 1]))
                ++i;
            continue;
        }
        if (text.compare(i, kMetadata.size(), kMetadata) == 0) {
            int depth = 0;
            for (; i < text.size(); ++i)
                if (text[i] == '{')
                    ++depth;
                else if (text[i] == '}' && --depth == 0)
                    break;
            continue;
        }
        fnv.add(text[i]);
    }
}

/// The top-level pieces of "a, b(c, d), e{f, g}" split at commas outside brackets.
std::vector<std::string_view> splitTopLevel(std::string_view text)
{
    std::vector<std::string_view> out;
    int depth = 0;
    size_t begin = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '(' || c == '[' || c == '{')
            ++depth;
        else if (c == ')' || c == ']' || c == '}')
            --depth;
        else if (c == ',' && depth == 0) {
            out.push_back(text.substr(begin, i - begin));
            begin = i + 1;
        }
    }
    out.push_back(text.substr(begin));
    return out;
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ')
        s.remove_suffix(1);
    return s;
}

/// The array shapes of a custom call's HLO text: its result (first array of a tuple) and operands.
bool customCallShapes(std::string_view text, hlo::Shape& result, std::vector<hlo::Shape>& operands)
{
    constexpr std::string_view kCall = " custom-call(";
    const size_t call = text.find(kCall);
    const size_t equals = text.find(" = ");
    if (call == std::string_view::npos || equals == std::string_view::npos || equals > call)
        return false;
    const layout::ShapeParseResult parsed = layout::parseShape(trim(text.substr(equals + 3, call - equals - 3)));
    if (!parsed.ok())
        return false;
    result
        = parsed.shape.isTuple() && !parsed.shape.tupleShapes.empty() ? parsed.shape.tupleShapes.front() : parsed.shape;
    // The operand list ends at its closing parenthesis (layouts hold parentheses of their own).
    const size_t open = call + kCall.size();
    int depth = 1;
    size_t close = open;
    for (; close < text.size() && depth > 0; ++close)
        if (text[close] == '(' || text[close] == '[' || text[close] == '{')
            ++depth;
        else if (text[close] == ')' || text[close] == ']' || text[close] == '}')
            --depth;
    if (depth != 0)
        return false;
    for (std::string_view piece : splitTopLevel(text.substr(open, close - 1 - open))) {
        piece = trim(piece);
        if (const size_t name = piece.rfind(" %"); name != std::string_view::npos)
            piece = piece.substr(0, name);
        const layout::ShapeParseResult operand = layout::parseShape(piece);
        if (operand.ok() && !operand.shape.isTuple())
            operands.push_back(operand.shape);
    }
    return !result.isTuple() && !result.dimensions.empty();
}

bool saysMatmul(std::string_view name, std::string_view frameworkOp, std::string_view text)
{
    constexpr size_t kLook = 64 * 1024; // the name and attributes come first; a hostile text is not searched whole
    std::string all;
    for (std::string_view part : {name, frameworkOp, text.substr(0, kLook)})
        for (char c : part)
            all += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (std::string_view word : {"matmul", "gemm", "gmm", "dot_general", "linear"})
        if (all.find(word) != std::string::npos)
            return true;
    return false;
}

/// Bytes one run reads or writes of an array outside VMEM (S(1)), tiles included.
double arrayBytes(const hlo::Shape& shape)
{
    if (shape.hasLayout && shape.layout.memorySpace == 1)
        return 0;
    const layout::PaddingInfo padding = layout::computePadding(shape);
    return static_cast<double>(padding.valid ? padding.paddedBytes : padding.logicalBytes);
}

/// Whether `w` is the weight of X[..., M, K] · W -> [..., M, N]: [K, N] or [N, K], with the
/// result's batch dims in front, or one more leading (group) dim for a rank-2 result.
bool isWeight(const hlo::Shape& w, const std::vector<int64_t>& batch, int64_t k, int64_t n)
{
    const auto& d = w.dimensions;
    if (d.size() < 2)
        return false;
    const int64_t a = d[d.size() - 2], b = d[d.size() - 1];
    if (!((a == k && b == n) || (a == n && b == k)))
        return false;
    const std::vector<int64_t> lead(d.begin(), d.end() - 2);
    return lead.empty() || lead == batch || (batch.empty() && lead.size() == 1);
}

} // namespace op_groups

std::string opNameStem(std::string_view name)
{
    std::string out;
    out.reserve(name.size());
    for (size_t i = 0; i < name.size(); ++i) {
        out += name[i];
        if (name[i] != '.')
            continue;
        size_t end = i + 1;
        while (end < name.size() && op_groups::isDigit(name[end]))
            ++end;
        if (end > i + 1 && (end == name.size() || name[end] == '.')) {
            out += '*';
            i = end - 1;
        }
    }
    return out;
}

uint64_t opGroupKey(std::string_view name, std::string_view hloText, std::string_view frameworkOp)
{
    op_groups::Fnv fnv;
    if (hloText.empty() && frameworkOp.empty()) {
        fnv.add(name); // nothing to compare: the op is a group of its own
        return fnv.h;
    }
    fnv.add(opNameStem(name));
    if (!hloText.empty())
        op_groups::addNormalizedHlo(fnv, hloText);
    else
        fnv.add(frameworkOp);
    return fnv.h;
}

uint64_t opGroupKey(std::string_view name, const hlo::Module& module, const hlo::Instruction& instruction)
{
    op_groups::Fnv fnv;
    fnv.add(opNameStem(name));
    fnv.add(instruction.opcode);
    fnv.add(hlo::shapeToString(instruction.shape));
    for (int64_t id : instruction.operandIds)
        if (const hlo::Instruction* operand = module.instructionById(id))
            fnv.add(hlo::shapeToString(operand->shape));
    fnv.add(instruction.fusionKind);
    for (int64_t id : instruction.calledComputationIds)
        if (const hlo::Computation* called = module.computation(id))
            for (const hlo::Instruction& inner : called->instructions)
                fnv.add(inner.opcode);
    return fnv.h;
}

const OpGroup* OpGroups::of(OpId op) const
{
    const auto it = groupOfOp.find(op);
    return it == groupOfOp.end() ? nullptr : &groups[it->second];
}

OpGroups groupOps(const OpBreakdown& opLevel)
{
    OpGroups out;
    std::map<std::pair<std::string, uint64_t>, size_t> index;
    for (const OpRow& row : opLevel.rows) {
        if (row.op == kNone)
            continue;
        auto [it, inserted] = index.emplace(std::pair {row.program, row.groupKey}, out.groups.size());
        if (inserted)
            out.groups.push_back({row.name, 0, 0, 0, row.op});
        OpGroup& g = out.groups[it->second];
        g.ops += 1;
        g.timePs += row.totalTimePs;
        out.groupOfOp.emplace(row.op, it->second);
    }
    for (OpGroup& g : out.groups) {
        g.timeFraction = opLevel.totalTimePs > 0 ? g.timePs / opLevel.totalTimePs : 0;
        if (g.ops > 1)
            g.label = opNameStem(g.label);
    }
    // By time; the op -> group map follows the new order.
    std::vector<size_t> order(out.groups.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(
        order.begin(), order.end(), [&](size_t a, size_t b) { return out.groups[a].timePs > out.groups[b].timePs; });
    std::vector<size_t> rank(order.size());
    std::vector<OpGroup> sorted;
    sorted.reserve(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
        rank[order[i]] = i;
        sorted.push_back(std::move(out.groups[order[i]]));
    }
    out.groups = std::move(sorted);
    for (auto& [op, g] : out.groupOfOp)
        g = rank[g];
    return out;
}

std::optional<KernelCost> matmulKernelCost(
    std::string_view hloText, std::string_view name, std::string_view frameworkOp)
{
    hlo::Shape result;
    std::vector<hlo::Shape> operands;
    if (!op_groups::customCallShapes(hloText, result, operands) || result.dimensions.size() < 2
        || !op_groups::saysMatmul(name, frameworkOp, hloText))
        return std::nullopt;
    const auto& r = result.dimensions;
    const int64_t m = r[r.size() - 2], n = r[r.size() - 1];
    const std::vector<int64_t> batch(r.begin(), r.end() - 2);
    for (size_t x = 0; x < operands.size(); ++x) {
        const auto& d = operands[x].dimensions;
        if (d.size() != r.size() || d[d.size() - 2] != m || !std::equal(batch.begin(), batch.end(), d.begin()))
            continue;
        const int64_t k = d.back();
        for (size_t w = 0; w < operands.size(); ++w) {
            if (w == x || !op_groups::isWeight(operands[w], batch, k, n) || m <= 0 || n <= 0 || k <= 0)
                continue;
            KernelCost cost;
            cost.m = m, cost.n = n, cost.k = k;
            for (int64_t b : batch)
                cost.batch *= std::max<int64_t>(1, b);
            cost.flops = 2.0 * static_cast<double>(cost.batch) * static_cast<double>(m) * static_cast<double>(n)
                * static_cast<double>(k);
            cost.bytes = op_groups::arrayBytes(result);
            for (const hlo::Shape& operand : operands)
                cost.bytes += op_groups::arrayBytes(operand);
            return cost;
        }
    }
    return std::nullopt;
}

} // namespace tpuscope::model
