// SPDX-License-Identifier: GPL-3.0-or-later
#include "opmatch.h"

#include <functional>
#include <optional>
#include <unordered_map>

namespace tpuscope::model {

const char* matchedByName(MatchedBy how)
{
    switch (how) {
    case MatchedBy::Name:
        return "name";
    case MatchedBy::Fingerprint:
        return "fingerprint";
    case MatchedBy::FrameworkOp:
        return "framework-op";
    case MatchedBy::None:
        break;
    }
    return nullptr;
}

namespace opmatch_detail {

/// Called computations deeper than this, or more instructions than this per op, are not walked:
/// a hostile module cannot make a fingerprint expensive.
constexpr int kMaxCallDepth = 8;
constexpr size_t kMaxFingerprintInstructions = 20000;

/// FNV-1a over the canonical text, kept as two streams: with sizes and without.
class FingerprintHash
{
public:
    void both(std::string_view text)
    {
        add(m_exact, text);
        add(m_shapeless, text);
    }
    void shape(const hlo::Shape& shape)
    {
        if (shape.isTuple()) {
            both("(");
            for (const hlo::Shape& element : shape.tupleShapes)
                this->shape(element);
            both(")");
            return;
        }
        both(hlo::primitiveTypeName(shape.elementType));
        add(m_shapeless, "r" + std::to_string(shape.dimensions.size()));
        std::string dims = "[";
        for (int64_t d : shape.dimensions)
            dims += std::to_string(d) + ",";
        add(m_exact, dims + "]");
    }
    uint64_t exact() const { return m_exact; }
    uint64_t shapeless() const { return m_shapeless; }

private:
    static void add(uint64_t& hash, std::string_view text)
    {
        for (unsigned char c : text) {
            hash ^= c;
            hash *= 0x100000001b3ull;
        }
        hash ^= 0xff; // a separator, so "ab"+"c" differs from "a"+"bc"
        hash *= 0x100000001b3ull;
    }
    uint64_t m_exact = 0xcbf29ce484222325ull;
    uint64_t m_shapeless = 0xcbf29ce484222325ull;
};

struct FingerprintWalk
{
    const hlo::Module& module;
    FingerprintHash hash;
    size_t visited = 0;

    void instructionHead(const hlo::Instruction& in)
    {
        hash.both(in.opcode);
        hash.both(in.fusionKind);
        hash.both(in.customCallTarget);
        hash.shape(in.shape);
        if (in.hasConvolutionDimensions) {
            const auto& c = in.convolution;
            std::string dims = std::to_string(c.inputBatch) + "," + std::to_string(c.inputFeature) + ","
                + std::to_string(c.kernelInputFeature) + "," + std::to_string(c.kernelOutputFeature) + ","
                + std::to_string(c.outputBatch) + "," + std::to_string(c.outputFeature);
            hash.both(dims);
        }
    }

    /// The computation from its root, operands before users, each instruction numbered by the
    /// order it is first reached: the same structure under other names gives the same text.
    void computation(const hlo::Computation& computation, int depth)
    {
        const hlo::Instruction* root = computation.root();
        if (!root)
            return;
        std::unordered_map<int64_t, size_t> number;
        struct Frame
        {
            const hlo::Instruction* in;
            size_t next;
        };
        std::vector<Frame> stack {{root, 0}};
        number.emplace(root->id, SIZE_MAX);
        while (!stack.empty() && visited < kMaxFingerprintInstructions) {
            Frame& f = stack.back();
            if (f.next < f.in->operandIds.size()) {
                const int64_t id = f.in->operandIds[f.next++];
                const hlo::Instruction* operand = module.instructionById(id);
                if (operand && number.emplace(id, SIZE_MAX).second)
                    stack.push_back({operand, 0});
                continue;
            }
            const hlo::Instruction& in = *f.in;
            stack.pop_back();
            number[in.id] = visited++;
            emit(in, number, depth);
        }
    }

    void emit(const hlo::Instruction& in, const std::unordered_map<int64_t, size_t>& number, int depth)
    {
        instructionHead(in);
        if (in.opcode == "parameter")
            hash.both("p" + std::to_string(in.parameterNumber));
        std::string operands = "<";
        for (int64_t id : in.operandIds) {
            const auto it = number.find(id);
            operands += (it == number.end() ? std::string("?") : std::to_string(it->second)) + ",";
        }
        hash.both(operands + ">");
        calls(in, depth);
    }

    void calls(const hlo::Instruction& in, int depth)
    {
        if (depth >= kMaxCallDepth)
            return;
        for (int64_t id : in.calledComputationIds)
            if (const hlo::Computation* called = module.computation(id)) {
                hash.both("{");
                computation(*called, depth + 1);
                hash.both("}");
            }
    }
};

/// Matches, among the rows neither side has matched yet, the rows whose key is unique on both
/// sides; a row without a key (nullopt) takes no part. `accept` may refuse a pair.
void matchUnique(OpMatching& m, size_t sizeB, MatchedBy how,
    const std::function<std::optional<std::string>(bool sideA, size_t row)>& key,
    const std::function<bool(size_t a, size_t b)>& accept = {})
{
    std::unordered_map<std::string, std::pair<int, int>> rows; // key -> (row, count) per side
    std::unordered_map<std::string, std::pair<int, int>> rowsB;
    for (size_t i = 0; i < m.matchOfA.size(); ++i)
        if (m.matchOfA[i] < 0)
            if (auto k = key(true, i)) {
                auto& [row, count] = rows.try_emplace(*k, static_cast<int>(i), 0).first->second;
                ++count;
            }
    for (size_t j = 0; j < sizeB; ++j)
        if (!m.usedB[j])
            if (auto k = key(false, j)) {
                auto& [row, count] = rowsB.try_emplace(*k, static_cast<int>(j), 0).first->second;
                ++count;
            }
    for (const auto& [k, a] : rows) {
        const auto b = rowsB.find(k);
        if (a.second != 1 || b == rowsB.end() || b->second.second != 1)
            continue;
        const size_t i = static_cast<size_t>(a.first), j = static_cast<size_t>(b->second.first);
        if (accept && !accept(i, j))
            continue;
        m.matchOfA[i] = static_cast<int>(j);
        m.how[i] = how;
        m.usedB[j] = true;
    }
}

} // namespace opmatch_detail

using namespace opmatch_detail;

HloFingerprint hloFingerprint(const hlo::Module& module, const hlo::Instruction& instruction)
{
    FingerprintWalk walk {module, {}, 0};
    walk.instructionHead(instruction);
    for (const hlo::Shape& operand : instruction.operandShapes)
        walk.hash.shape(operand);
    walk.calls(instruction, 0);
    return {true, walk.hash.exact(), walk.hash.shapeless(), walk.visited};
}

std::vector<OpMatchKey> opMatchKeys(const Profile& profile, const OpBreakdown& breakdown)
{
    std::vector<OpMatchKey> keys;
    keys.reserve(breakdown.rows.size());
    for (const OpRow& row : breakdown.rows) {
        OpMatchKey key {row.name, row.program, row.frameworkOp, row.source, {}};
        if (row.op < profile.ops.size()) {
            const OpInfo& op = profile.ops[row.op];
            const hlo::Module* module = profile.hloFor(op);
            if (const hlo::Instruction* instruction = module ? module->instruction(profile.str(op.name)) : nullptr)
                key.fingerprint = hloFingerprint(*module, *instruction);
        }
        keys.push_back(std::move(key));
    }
    return keys;
}

OpMatching matchOps(const std::vector<OpMatchKey>& a, const std::vector<OpMatchKey>& b)
{
    OpMatching m;
    m.matchOfA.assign(a.size(), -1);
    m.how.assign(a.size(), MatchedBy::None);
    m.usedB.assign(b.size(), false);
    const auto side = [&](bool sideA, size_t row) -> const OpMatchKey& { return sideA ? a[row] : b[row]; };
    constexpr char kSep = '\x1f';
    // 1. The same name (within a program, then across programs) and, where both sides have HLO, the same HLO.
    const auto sameHlo = [&](size_t i, size_t j) {
        const HloFingerprint &x = a[i].fingerprint, &y = b[j].fingerprint;
        return !x.known || !y.known || x.exact == y.exact;
    };
    matchUnique(
        m, b.size(), MatchedBy::Name,
        [&](bool s, size_t r) -> std::optional<std::string> { return side(s, r).program + kSep + side(s, r).name; },
        sameHlo);
    matchUnique(
        m, b.size(), MatchedBy::Name, [&](bool s, size_t r) -> std::optional<std::string> { return side(s, r).name; },
        sameHlo);
    // 2. The same fingerprint: with sizes, then without; each within a program, then across.
    for (const bool sized : {true, false})
        for (const bool withProgram : {true, false})
            matchUnique(m, b.size(), MatchedBy::Fingerprint, [&](bool s, size_t r) -> std::optional<std::string> {
                const OpMatchKey& k = side(s, r);
                if (!k.fingerprint.known)
                    return std::nullopt;
                const uint64_t print = sized ? k.fingerprint.exact : k.fingerprint.shapeless;
                return (withProgram ? k.program + kSep : std::string()) + std::to_string(print);
            });
    // 3. The same framework op and source line.
    for (const bool withProgram : {true, false})
        matchUnique(m, b.size(), MatchedBy::FrameworkOp, [&](bool s, size_t r) -> std::optional<std::string> {
            const OpMatchKey& k = side(s, r);
            if (k.frameworkOp.empty() || k.source.empty())
                return std::nullopt;
            return (withProgram ? k.program + kSep : std::string()) + k.frameworkOp + kSep + k.source;
        });
    return m;
}

} // namespace tpuscope::model
