// SPDX-License-Identifier: GPL-3.0-or-later
#include "attribution.h"
#include "../core/diagnostics.h"

namespace tpuscope::model {

std::string frameworkOpName(std::string_view tfOp)
{
    const size_t colon = tfOp.rfind(':');
    if (colon == std::string_view::npos)
        return std::string(tfOp);
    // The type suffix is a bare word: a '/' or a closing bracket after the colon means the colon
    // belongs to the name (JAX parameters such as "[dimension_numbers=...]").
    const std::string_view suffix = tfOp.substr(colon + 1);
    if (suffix.find_first_of("/)]}") != std::string_view::npos)
        return std::string(tfOp);
    return std::string(tfOp.substr(0, colon));
}

OpAttribution opAttribution(const Profile& profile, OpId opId)
{
    OpAttribution out;
    if (!TPUSCOPE_CHECK(opId < profile.ops.size()))
        return out;
    const OpInfo& op = profile.ops[opId];
    out.frameworkOp = frameworkOpName(profile.str(op.tfOp));
    out.source = profile.str(op.source);
    if (!out.frameworkOp.empty() && !out.source.empty())
        return out;
    if (const hlo::Instruction* instruction = profile.instructionFor(op)) {
        if (out.frameworkOp.empty())
            out.frameworkOp = frameworkOpName(instruction->opName);
        if (out.source.empty() && !instruction->sourceFile.empty())
            out.source = instruction->sourceFile
                + (instruction->sourceLine > 0 ? ":" + std::to_string(instruction->sourceLine) : std::string());
    }
    return out;
}

namespace {

constexpr size_t kLongParameters = 16;

std::string shortened(const std::string& frameworkOp)
{
    std::string out;
    out.reserve(frameworkOp.size());
    for (size_t i = 0; i < frameworkOp.size(); ++i) {
        if (frameworkOp[i] != '[') {
            out += frameworkOp[i];
            continue;
        }
        // Find the matching bracket; keep short parameter lists as they are.
        int depth = 0;
        size_t end = i;
        for (; end < frameworkOp.size(); ++end) {
            depth += frameworkOp[end] == '[' ? 1 : frameworkOp[end] == ']' ? -1 : 0;
            if (depth == 0)
                break;
        }
        if (end >= frameworkOp.size() || end - i <= kLongParameters) {
            out += frameworkOp.substr(i, end >= frameworkOp.size() ? std::string::npos : end - i + 1);
            if (end >= frameworkOp.size())
                break;
        } else {
            out += "[\u2026]";
        }
        i = end;
    }
    return out;
}

} // namespace

std::string attributionText(const OpAttribution& a)
{
    const std::string name = shortened(a.frameworkOp);
    if (name.empty())
        return a.source;
    return a.source.empty() ? name : name + ", " + a.source;
}

} // namespace tpuscope::model
