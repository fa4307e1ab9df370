// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The HLO a share file keeps of one module: only the instructions its kept ops need, and the
// module's HBM peak, written as the "hlo" of a program (schema in sharefile.cpp). Part of the
// share-file writer, not an API.

#include "../analysis/memory.h"
#include "../core/hlo.h"
#include "shareredaction.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>

namespace tpuscope::model {

class JsonWriter;

namespace share_detail {

/// Which instructions of one module the kept ops need.
class ModuleReducer
{
public:
    explicit ModuleReducer(const hlo::Module& module)
        : m_module(module)
    {
    }

    /// Keeps a kept op's instruction, its operands as stubs and every computation it calls.
    void addOp(const hlo::Instruction& instruction);
    /// Keeps the module's HBM peak: its largest buffers (their instructions as stubs) and the rest summed.
    void addMemory(const ModuleMemory& memory);

    size_t instructionCount() const;
    /// Adds the names of the module and of what it keeps (for hash redaction).
    void collectNames(NameMap& names) const;
    void write(JsonWriter& w, const NameMap& names, const TextRedactor& texts, const ShareRedaction& redaction) const;

private:
    void writeMemory(JsonWriter& w) const;
    bool included(int64_t computation, int64_t instruction) const;
    void addComputation(int64_t id, int depth);

    const hlo::Module& m_module;
    const ModuleMemory* m_memory = nullptr;
    std::map<int64_t, std::set<int64_t>> m_full;
    std::map<int64_t, std::set<int64_t>> m_stub;
    std::set<int64_t> m_fullComputations;
};

} // namespace share_detail

} // namespace tpuscope::model
