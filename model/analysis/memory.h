// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The HBM memory view: the peak heap of each module as xprof's memory viewer computes it
// (FORMATS.md §3.1), the buffers alive at the peak, and how much of the peak is tile padding.

#include "../core/profile.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tpuscope::model {

/// The allocation group of a buffer, in xprof's order of precedence.
enum class BufferKind : uint8_t { Parameter, Output, ThreadLocal, Constant, Temporary };
/// "parameter", "output", "thread-local", "constant", "temporary".
const char* bufferKindName(BufferKind kind);
BufferKind bufferKindOf(const hlo::BufferAllocation& allocation);

/// One dimension a tile pads: "dim 3 of size 3 padded to 128 by tile T(8,128)".
struct PaddedDimension
{
    int64_t dim = 0; // logical dimension index; -1 for the padding of a rank-0 (or rank-deficient) array
    int64_t size = 0;
    int64_t padded = 0;
    std::string tile; // the layout's tiles, e.g. "T(8,128)(2,1)"
    bool scalar = false; // dim -1 of a rank-0 array: "scalar padded to 128 elements by tile T(128)"

    std::string text() const;
};

struct BufferAtPeak
{
    int64_t logicalBufferId = 0;
    int64_t allocationIndex = 0;
    const hlo::Instruction* instruction = nullptr; // owned by the module; null when not found
    std::string instructionName; // with the shape index of a tuple element: "fusion.3{1}"
    std::string frameworkOp; // OpMetadata op_name
    std::string source; // "file.py:12" when the metadata has it
    std::string shape; // HLO text with layout
    BufferKind kind = BufferKind::Temporary;
    bool indefinite = false; // live for the whole program (parameters, outputs, thread-local, constants)
    int64_t sizeBytes = 0; // what the peak counts: the padded buffer, or the whole allocation when indefinite
    int64_t unpaddedBytes = 0; // the shape without tiling (never above sizeBytes)
    std::vector<PaddedDimension> paddedDims;

    int64_t paddingBytes() const { return sizeBytes - unpaddedBytes; }
};

/// The heap after the first `position` events of the heap-simulator trace (position 0 = before
/// any), with the indefinite allocations included.
struct MemoryPoint
{
    int64_t position = 0;
    int64_t heapBytes = 0;
    int64_t unpaddedBytes = 0;
};

struct ModuleMemory
{
    std::string name; // as in the file
    const hlo::Module* module = nullptr;
    int64_t color = 0;
    int heapTrace = -1; // index of the simulated heap-simulator trace; -1 = none for this color

    // xprof's peakHeap: the simulated peak plus every indefinite allocation of the color.
    int64_t peakHeapBytes = 0;
    // Stricter than xprof (which adds indefinite allocations at their padded size): indefinite
    // buffers count at their own unpadded size too.
    int64_t peakUnpaddedBytes = 0;
    int64_t peakPaddingBytes = 0; // peakHeapBytes - peakUnpaddedBytes
    int64_t simulatedPeakBytes = 0; // heap-simulator part of the peak
    int64_t peakPosition = 0; // timeline position of the peak

    int64_t entryParameterBytes = 0;
    int64_t maybeLiveOutBytes = 0;
    int64_t indefiniteBytes = 0;
    int64_t totalAllocationBytes = 0; // every allocation of the color

    std::vector<BufferAtPeak> buffersAtPeak; // largest first
    std::vector<MemoryPoint> timeline;
    std::vector<std::string> warnings; // inconsistencies in the trace (a buffer freed twice, ...)

    double paddingFraction() const
    {
        return peakHeapBytes > 0 ? static_cast<double>(peakPaddingBytes) / static_cast<double>(peakHeapBytes) : 0.0;
    }
};

struct MemoryReport
{
    std::vector<ModuleMemory> modules; // in program order; only modules with a buffer assignment
    double hbmCapacityBytes = 0; // per device; 0 = unknown
    std::string capacityNote; // where the capacity comes from
    /// Peak as a share of the HBM capacity; negative when the capacity is unknown.
    double capacityFraction(const ModuleMemory& module) const
    {
        return hbmCapacityBytes > 0 ? static_cast<double>(module.peakHeapBytes) / hbmCapacityBytes : -1.0;
    }
    const ModuleMemory* find(std::string_view moduleName) const;
};

constexpr int64_t kHbmColor = 0;

/// Memory of one module for one memory color. A module without a buffer assignment gives an
/// empty result with a warning.
ModuleMemory analyzeModuleMemory(const hlo::Module& module, int64_t color = kHbmColor);

/// Every module of the profile that carries a buffer assignment, plus the HBM capacity of the
/// device generation when it is known.
MemoryReport analyzeMemory(const Profile& profile, int64_t color = kHbmColor);

/// The buffers at a module's peak with another per-core batch: each buffer with a dimension of the
/// current batch size (the one labelled batch when the defining instruction tells, else the first
/// of that size) gets the new size in that dimension, its padded size recomputed with the same
/// layout. An estimate of the same program point: a larger batch may also change the schedule
/// and the layouts XLA picks.
struct MemoryBatchWhatIf
{
    int64_t peakHeapBytes = 0; // the peak with the new batch
    int64_t scaledBuffers = 0; // buffers that have a batch dimension
    int64_t unchangedPaddedBuffers = 0; // of those, the ones whose padded size does not change
};
MemoryBatchWhatIf whatIfMemoryBatch(const ModuleMemory& memory, int64_t currentBatch, int64_t newBatch);

/// Byte size of a shape without tiling, as xprof's ShapeUnpaddedSize: elements × natural element
/// size (PRED one byte), a tuple 8 bytes per element.
int64_t unpaddedShapeBytes(const hlo::Shape& shape);

} // namespace tpuscope::model
