// SPDX-License-Identifier: GPL-3.0-or-later
// The origin story recompiled (`origin-story:global_batch=1024`): the same U-Net after the fix the
// demo's advice names. A new global batch is a new compilation: XLA renumbers every instruction
// and computation, the batch dimension of every activation takes the new per-core batch, the
// 3-channel input gets the 8-row tile of the others, and the ReLU moves from the first
// convolution's fusion into the batch-norm fusion after it. Each op's time follows its padded
// bytes (HBM traffic is tiles, not logical elements) with a roofline floor. What `diff` and
// `gate` must see through: renamed ops that compute the same thing, and why each one changed.
#include "synthinternal.h"

#include "analysis/layout.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace tpuscope::model::synth_detail {

namespace recompile_detail {

/// The demo's own per-core batch: every activation's leading dimension in originComputations().
constexpr int64_t kOriginPerCoreBatch = 16;
constexpr int64_t kOriginGlobalBatch = 128;
/// No op of the recompiled program runs above this share of its roofline bound.
constexpr double kMaxRooflineShare = 0.85;

/// `shape` with each array's leading dimension `from` replaced by `to` ("f32[16,128]" and the
/// elements of a tuple shape alike).
std::string withLeadingDimension(const std::string& shape, int64_t from, int64_t to)
{
    const std::string old = std::to_string(from);
    std::string out;
    size_t i = 0;
    while (i < shape.size()) {
        out += shape[i];
        if (shape[i++] != '[')
            continue;
        size_t end = i;
        while (end < shape.size() && std::isdigit(static_cast<unsigned char>(shape[end])))
            ++end;
        if (shape.compare(i, end - i, old) == 0 && end < shape.size() && (shape[end] == ',' || shape[end] == ']')) {
            out += std::to_string(to);
            i = end;
        }
    }
    return out;
}

CompSpec* findComputation(std::vector<CompSpec>& computations, const std::string& name)
{
    for (CompSpec& c : computations)
        if (c.name == name)
            return &c;
    return nullptr;
}

/// XLA's fusion choice at the new batch: the ReLU (constant, broadcast, maximum) leaves the first
/// convolution's fusion and joins the batch-norm fusion that reads its result.
void moveRelu(std::vector<CompSpec>& computations)
{
    CompSpec* conv = findComputation(computations, "fused_computation.7");
    CompSpec* norm = findComputation(computations, "fused_computation.12");
    if (!conv || !norm || conv->instructions.size() < 4 || norm->instructions.empty()
        || conv->instructions.back().opcode != "maximum")
        return;
    std::vector<InstSpec> relu(conv->instructions.end() - 3, conv->instructions.end());
    conv->instructions.erase(conv->instructions.end() - 3, conv->instructions.end());
    const std::string input = norm->instructions.front().name; // the convolution's result
    const std::string convolution = conv->instructions.back().name;
    for (InstSpec& inst : relu)
        std::replace(inst.operands.begin(), inst.operands.end(), convolution, input);
    const std::string reluName = relu.back().name;
    for (InstSpec& inst : norm->instructions)
        std::replace(inst.operands.begin(), inst.operands.end(), input, reluName);
    norm->instructions.insert(norm->instructions.begin() + 1, relu.begin(), relu.end());
}

/// Every name with a numeric suffix ("fusion.3", "fused_computation.3", "main.42") gets a new
/// number, distinct over the module, drawn from the seed: XLA numbers anew at each compilation,
/// so an old name may come back on another op.
std::map<std::string, std::string> renumbering(const std::vector<CompSpec>& computations, uint64_t seed)
{
    std::vector<std::string> names;
    for (const CompSpec& c : computations) {
        names.push_back(c.name);
        for (const InstSpec& i : c.instructions)
            names.push_back(i.name);
    }
    SplitMix rng(seed);
    std::set<int64_t> taken;
    std::map<std::string, std::string> out;
    const int64_t range = static_cast<int64_t>(names.size()) * 2 + 16;
    for (const std::string& name : names) {
        const size_t dot = name.rfind('.');
        if (dot == std::string::npos || out.count(name))
            continue;
        int64_t number = 0;
        do
            number = 1 + static_cast<int64_t>(rng.next() % static_cast<uint64_t>(range));
        while (!taken.insert(number).second);
        out[name] = name.substr(0, dot + 1) + std::to_string(number);
    }
    return out;
}

/// `text` with every `%name` in `names` renamed (HLO text refers to instructions and computations so).
std::string renamedText(const std::string& text, const std::map<std::string, std::string>& names)
{
    std::string out;
    size_t i = 0;
    while (i < text.size()) {
        if (text[i] != '%') {
            out += text[i++];
            continue;
        }
        size_t end = i + 1;
        while (end < text.size()
            && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_' || text[end] == '.'
                || text[end] == '-'))
            ++end;
        const std::string name = text.substr(i + 1, end - i - 1);
        const auto it = names.find(name);
        out += '%' + (it == names.end() ? name : it->second);
        i = end;
    }
    return out;
}

/// Padded bytes of an op's result and operands as its entry instruction lays them out.
double paddedBytes(const std::vector<CompSpec>& computations, const std::string& op)
{
    const CompSpec& entry = computations.back();
    std::map<std::string, const InstSpec*> byName;
    for (const InstSpec& i : entry.instructions)
        byName[i.name] = &i;
    const auto it = byName.find(op);
    if (it == byName.end())
        return 0;
    auto bytesOf = [](const std::string& text) {
        const hlo::Shape shape = layout::parseShape(text).shape;
        double bytes = 0;
        for (const hlo::Shape& array : shape.isTuple() ? shape.tupleShapes : std::vector<hlo::Shape> {shape})
            bytes += static_cast<double>(layout::computePadding(array).paddedBytes);
        return bytes;
    };
    double bytes = bytesOf(it->second->shape);
    for (const std::string& operand : it->second->operands)
        if (const auto o = byName.find(operand); o != byName.end())
            bytes += bytesOf(o->second->shape);
    return bytes;
}

} // namespace recompile_detail

using namespace recompile_detail;

OriginRecompile::OriginRecompile(const SynthOptions& options)
    : m_perCoreBatch(options.globalBatch / std::max(1, options.cores))
    , m_slowdown(options.slowdownPct / 100)
    , m_seed(options.seed)
{
}

bool OriginRecompile::check(const SynthOptions& options, std::string& error)
{
    if (options.globalBatch < options.cores || options.globalBatch % options.cores != 0
        || options.globalBatch / options.cores > 4096) {
        error = "synth: origin-story needs a global batch that is a multiple of its " + std::to_string(options.cores)
            + " cores, at most 4096 per core (global_batch=" + std::to_string(options.globalBatch) + ")";
        return false;
    }
    if (!(options.slowdownPct > -50 && options.slowdownPct <= 1000)) {
        error = "synth: origin-story takes slowdown_pct between -50 and 1000";
        return false;
    }
    return true;
}

bool OriginRecompile::recompiled() const
{
    return m_perCoreBatch != kOriginPerCoreBatch;
}

std::vector<CompSpec> OriginRecompile::reshape(std::vector<CompSpec> computations)
{
    if (!recompiled())
        return computations;
    for (CompSpec& c : computations)
        for (InstSpec& i : c.instructions) {
            i.shape = withLeadingDimension(i.shape, kOriginPerCoreBatch, m_perCoreBatch);
            // The 3-channel input's 4-row tile becomes the 8-row tile of every other activation.
            if (const size_t tile = i.shape.find(":T(4,128)"); tile != std::string::npos && m_perCoreBatch >= 128)
                i.shape.replace(tile, 9, ":T(8,128)");
        }
    moveRelu(computations);
    m_names = renumbering(computations, m_seed ^ static_cast<uint64_t>(m_perCoreBatch));
    return computations;
}

void OriginRecompile::renumber(BuiltModule& module) const
{
    if (m_names.empty())
        return;
    auto* hlo = module.proto.mutable_hlo_module();
    hlo->set_entry_computation_name(name(hlo->entry_computation_name()));
    for (auto& computation : *hlo->mutable_computations()) {
        computation.set_name(name(computation.name()));
        for (auto& instruction : *computation.mutable_instructions())
            instruction.set_name(name(instruction.name()));
    }
    std::map<std::string, std::string> text;
    for (const auto& [key, line] : module.hloText)
        text[name(key)] = renamedText(line, m_names);
    module.hloText = std::move(text);
    if (module.bufferAssignment)
        for (auto& trace : *module.bufferAssignment->mutable_heap_simulator_traces())
            for (auto& event : *trace.mutable_events()) {
                event.set_instruction_name(name(event.instruction_name()));
                event.set_computation_name(name(event.computation_name()));
            }
}

std::string OriginRecompile::name(const std::string& original) const
{
    const auto it = m_names.find(original);
    return it == m_names.end() ? original : it->second;
}

uint64_t OriginRecompile::programId(uint64_t original) const
{
    return recompiled() ? SplitMix(original ^ static_cast<uint64_t>(m_perCoreBatch)).next() : original;
}

void OriginRecompile::scaleDurations(std::vector<double>& durationsPs, const std::vector<CompSpec>& before,
    const std::vector<CompSpec>& after, const std::vector<std::string>& ops, const DeviceSpec& device) const
{
    for (size_t i = 0; i < ops.size() && i < durationsPs.size(); ++i) {
        if (recompiled()) {
            // Memory traffic is whole tiles: an op moves its padded bytes, whatever part of them holds data.
            const double was = paddedBytes(before, ops[i]), now = paddedBytes(after, ops[i]);
            if (was > 0 && now > 0)
                durationsPs[i] *= now / was;
            const OpCost cost = opCostFromShapes(after, after.back().name, ops[i]);
            const double boundPs = std::max(cost.flops / (device.peakTflops * 1e12),
                                       (cost.readBytes + cost.writeBytes) / (device.peakHbmGbps * 1e9))
                * 1e12;
            durationsPs[i] = std::max(durationsPs[i], boundPs / kMaxRooflineShare);
        }
        durationsPs[i] *= 1 + m_slowdown;
    }
}

} // namespace tpuscope::model::synth_detail
