// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory.h"

#include "../core/devicepeaks.h"
#include "layout.h"

#include <algorithm>
#include <limits>
#include <unordered_set>

namespace tpuscope::model {

const char* bufferKindName(BufferKind kind)
{
    switch (kind) {
    case BufferKind::Parameter:
        return "parameter";
    case BufferKind::Output:
        return "output";
    case BufferKind::ThreadLocal:
        return "thread-local";
    case BufferKind::Constant:
        return "constant";
    case BufferKind::Temporary:
        return "temporary";
    }
    return "temporary";
}

BufferKind bufferKindOf(const hlo::BufferAllocation& allocation)
{
    if (allocation.isEntryComputationParameter)
        return BufferKind::Parameter;
    if (allocation.maybeLiveOut)
        return BufferKind::Output;
    if (allocation.isThreadLocal)
        return BufferKind::ThreadLocal;
    if (allocation.isConstant)
        return BufferKind::Constant;
    return BufferKind::Temporary;
}

std::string PaddedDimension::text() const
{
    const std::string by = tile.empty() ? std::string() : " by tile " + tile;
    if (dim < 0 && scalar)
        return "scalar padded to " + std::to_string(padded) + " elements" + by;
    if (dim < 0)
        return "dims the tile adds beyond the rank pad it " + std::to_string(padded) + "-fold" + by;
    return "dim " + std::to_string(dim) + " of size " + std::to_string(size) + " padded to " + std::to_string(padded)
        + by;
}

const ModuleMemory* MemoryReport::find(std::string_view moduleName) const
{
    for (const auto& m : modules)
        if (m.name == moduleName)
            return &m;
    return nullptr;
}

namespace {

int64_t saturatingMul(int64_t a, int64_t b)
{
    if (a <= 0 || b <= 0)
        return 0;
    if (a > std::numeric_limits<int64_t>::max() / b)
        return std::numeric_limits<int64_t>::max();
    return a * b;
}

int64_t saturatingAdd(int64_t a, int64_t b)
{
    if (b > 0 && a > std::numeric_limits<int64_t>::max() - b)
        return std::numeric_limits<int64_t>::max();
    return a + b;
}

int64_t unpaddedBytesAt(const hlo::Shape& shape)
{
    if (shape.isTuple())
        return saturatingMul(static_cast<int64_t>(shape.tupleShapes.size()), 8);
    // Natural sizes (not the TPU storage size layout.h uses for padding): PRED is one byte here.
    const int64_t bits = shape.elementType == hlo::PrimitiveType::Pred ? 8 : hlo::primitiveTypeBits(shape.elementType);
    int64_t elements = 1;
    for (int64_t d : shape.dimensions) {
        if (d <= 0)
            return 0; // an empty array, or a dynamic dimension without a bound
        elements = saturatingMul(elements, d);
    }
    const int64_t totalBits = saturatingMul(elements, bits);
    return totalBits == std::numeric_limits<int64_t>::max() ? totalBits : (totalBits + 7) / 8;
}

std::vector<PaddedDimension> paddedDimensionsOf(const hlo::Shape& shape)
{
    std::vector<PaddedDimension> out;
    if (shape.isTuple() || !shape.hasLayout)
        return out;
    const layout::PaddingInfo info = layout::computePadding(shape);
    if (!info.valid)
        return out;
    for (const auto& dim : info.dims)
        if (dim.padded > dim.size)
            out.push_back({dim.logicalDim, dim.size, dim.padded, info.tileText});
    if (info.implicitTilePadding > 1)
        out.push_back({-1, 1, info.implicitTilePadding, info.tileText, shape.dimensions.empty()});
    return out;
}

/// Reference-counted heap state of one logical buffer, as xprof's LogicalBufferStruct.
struct BufferState
{
    const hlo::LogicalBuffer* buffer = nullptr;
    const hlo::BufferAllocation* allocation = nullptr;
    int64_t unpadded = 0;
    int64_t refCount = 0;
    int32_t canonical = -1; // index of the buffer this one shares with; -1 = itself
    int64_t liveEntries = 0; // how often it is in xprof's "logical_buffers" list right now
    int64_t liveSince = 0; // order of its first entry since it was last removed
};

class HeapSimulation
{
public:
    HeapSimulation(const hlo::Module& module, const hlo::BufferAssignment& assignment, int64_t color,
        std::vector<std::string>& warnings)
        : m_assignment(assignment)
        , m_color(color)
        , m_warnings(warnings)
    {
        m_states.resize(assignment.logicalBuffers.size());
        for (size_t i = 0; i < m_states.size(); ++i) {
            BufferState& s = m_states[i];
            s.buffer = &assignment.logicalBuffers[i];
            s.allocation = assignment.allocationOf(s.buffer->id);
            const hlo::Shape* shape = module.bufferShape(*s.buffer);
            s.unpadded = std::min(shape            ? unpaddedShapeBytes(*shape)
                    : s.buffer->unpaddedBytes >= 0 ? s.buffer->unpaddedBytes
                                                   : s.buffer->size,
                s.buffer->size);
        }
    }

    /// The buffer a heap event names, or -1 when it is unknown or in no allocation (xprof skips both).
    int32_t stateOf(int64_t bufferId) const
    {
        const hlo::LogicalBuffer* buffer = m_assignment.logicalBuffer(bufferId);
        if (!buffer)
            return -1;
        const auto index = static_cast<int32_t>(buffer - m_assignment.logicalBuffers.data());
        return m_states[static_cast<size_t>(index)].allocation ? index : -1;
    }
    const BufferState& state(int32_t index) const { return m_states[static_cast<size_t>(index)]; }

    /// Which trace xprof simulates for the color: the one tied to a non-indefinite allocation of
    /// the color (through the allocation of its first event's buffer), else the one with the most
    /// events on buffers of the color.
    int chooseTrace() const
    {
        const auto& traces = m_assignment.heapTraces;
        std::vector<std::pair<int64_t, int>> tiedTemporaries; // (allocation index, trace)
        std::unordered_map<const hlo::BufferAllocation*, int> traceOfAllocation;
        for (size_t t = 0; t < traces.size(); ++t) {
            if (traces[t].events.empty())
                continue;
            const int32_t first = stateOf(traces[t].events.front().bufferId);
            if (first >= 0)
                traceOfAllocation[state(first).allocation] = static_cast<int>(t); // later traces win, as in xprof
        }
        for (const auto& [allocation, trace] : traceOfAllocation)
            if (allocation->color == m_color && !allocation->isIndefinite())
                tiedTemporaries.emplace_back(allocation->index, trace);
        if (!tiedTemporaries.empty()) // xprof takes whichever its hash map yields first; the lowest index is stable
            return std::min_element(tiedTemporaries.begin(), tiedTemporaries.end())->second;
        int best = -1;
        int64_t bestCount = 0;
        for (size_t t = 0; t < traces.size(); ++t) {
            int64_t count = 0;
            for (const auto& event : traces[t].events) {
                const int32_t s = stateOf(event.bufferId);
                if (s >= 0 && state(s).buffer->color == m_color)
                    ++count;
            }
            if (count > bestCount) {
                best = static_cast<int>(t);
                bestCount = count;
            }
        }
        return best;
    }

    struct Result
    {
        std::vector<int64_t> heap, unpadded; // before each event, plus the final state (xprof's timeline)
        int64_t peak = 0, peakUnpadded = 0;
        int64_t peakEvent = -1; // the event that reached the peak; -1 = never above 0
        std::vector<int32_t> alive; // buffers in the heap after `stopAfter` events, in program order
    };

    /// Runs the trace; with stopAfter >= 0 it stops after that event and reports the live buffers.
    Result run(const hlo::HeapSimulatorTrace& trace, int64_t stopAfter, bool warn)
    {
        for (auto& s : m_states) {
            s.refCount = 0;
            s.canonical = -1;
            s.liveEntries = 0;
        }
        m_order = 0;
        Result r;
        int64_t heap = 0, unpadded = 0;
        std::unordered_set<const hlo::BufferAllocation*> allocationsSeen;
        int64_t doubleFrees = 0, negative = 0, cycles = 0;
        std::string firstDoubleFree;
        auto increase = [&](int32_t index) {
            BufferState& s = m_states[static_cast<size_t>(index)];
            heap = saturatingAdd(heap, s.buffer->size);
            unpadded = saturatingAdd(unpadded, s.unpadded);
            if (s.liveEntries++ == 0)
                s.liveSince = m_order++;
            if (heap > r.peak) {
                r.peak = heap;
                r.peakUnpadded = unpadded;
                r.peakEvent = static_cast<int64_t>(r.heap.size()) - 1;
            }
        };
        auto decrease = [&](int32_t index) {
            BufferState& s = m_states[static_cast<size_t>(index)];
            heap -= s.buffer->size;
            unpadded -= s.unpadded;
            s.liveEntries = 0; // xprof removes every entry of the buffer
            if (heap < 0) {
                ++negative;
                heap = 0;
                unpadded = 0;
            }
        };
        const auto& events = trace.events;
        r.heap.reserve(events.size() + 1);
        r.unpadded.reserve(events.size() + 1);
        for (size_t e = 0; e < events.size(); ++e) {
            r.heap.push_back(heap);
            r.unpadded.push_back(unpadded);
            if (stopAfter >= 0 && static_cast<int64_t>(e) > stopAfter)
                break;
            const hlo::HeapEvent& event = events[e];
            const int32_t index = stateOf(event.bufferId);
            if (index < 0)
                continue;
            allocationsSeen.insert(state(index).allocation);
            switch (event.kind) {
            case hlo::HeapEvent::Kind::Alloc:
                ++m_states[static_cast<size_t>(root(index))].refCount;
                increase(index);
                break;
            case hlo::HeapEvent::Kind::Free: {
                const int32_t canonical = root(index);
                BufferState& c = m_states[static_cast<size_t>(canonical)];
                if (c.refCount <= 0) {
                    if (doubleFrees++ == 0)
                        firstDoubleFree = "buffer " + std::to_string(event.bufferId) + " (event " + std::to_string(e)
                            + ", " + event.instructionName + ")";
                    break; // xprof stops with an error; the extra FREE is ignored here
                }
                if (--c.refCount == 0)
                    decrease(canonical);
                break;
            }
            case hlo::HeapEvent::Kind::ShareWith: {
                const int32_t canonical = stateOf(event.shareWithCanonicalId);
                if (canonical < 0)
                    break;
                if (reaches(canonical, index)) {
                    ++cycles; // sharing with itself (directly or through a chain) would loop forever
                    break;
                }
                m_states[static_cast<size_t>(index)].canonical = canonical;
                // A share after the canonical was freed brings the canonical's bytes back.
                if (++m_states[static_cast<size_t>(root(canonical))].refCount == 1)
                    increase(canonical);
                break;
            }
            }
        }
        if (stopAfter < 0 || stopAfter >= static_cast<int64_t>(events.size())) {
            r.heap.push_back(heap);
            r.unpadded.push_back(unpadded);
        }
        if (stopAfter >= 0) {
            std::vector<std::pair<int64_t, int32_t>> live;
            for (size_t i = 0; i < m_states.size(); ++i)
                for (int64_t n = 0; n < m_states[i].liveEntries; ++n)
                    live.emplace_back(m_states[i].liveSince, static_cast<int32_t>(i));
            std::sort(live.begin(), live.end());
            for (const auto& [order, index] : live)
                r.alive.push_back(index);
        }
        if (warn) {
            if (doubleFrees > 0)
                m_warnings.push_back(std::to_string(doubleFrees)
                    + " heap-simulator FREE event(s) release a buffer that is not allocated, first " + firstDoubleFree
                    + "; they were ignored (xprof rejects the module)");
            if (negative > 0)
                m_warnings.push_back("the heap size went below zero " + std::to_string(negative)
                    + " time(s); it was reset to zero (the trace is inconsistent)");
            if (cycles > 0)
                m_warnings.push_back(std::to_string(cycles) + " SHARE_WITH event(s) would make a buffer share with "
                    + "itself; they were ignored");
            if (allocationsSeen.size() > 1)
                m_warnings.push_back("the heap trace spans " + std::to_string(allocationsSeen.size())
                    + " buffer allocations (xprof expects one)");
        }
        return r;
    }

private:
    /// Whether the SHARE_WITH chain from `from` passes through `target` (sharing would then loop).
    bool reaches(int32_t from, int32_t target) const
    {
        for (int32_t at = from; at >= 0; at = m_states[static_cast<size_t>(at)].canonical)
            if (at == target)
                return true;
        return false;
    }

    /// The canonical buffer at the end of the SHARE_WITH chain, with path compression so long chains
    /// stay cheap (roots are unchanged by it).
    int32_t root(int32_t index)
    {
        int32_t r = index;
        while (m_states[static_cast<size_t>(r)].canonical >= 0)
            r = m_states[static_cast<size_t>(r)].canonical;
        while (m_states[static_cast<size_t>(index)].canonical >= 0) {
            const int32_t next = m_states[static_cast<size_t>(index)].canonical;
            if (next != r)
                m_states[static_cast<size_t>(index)].canonical = r;
            index = next;
        }
        return r;
    }

    const hlo::BufferAssignment& m_assignment;
    int64_t m_color;
    std::vector<std::string>& m_warnings;
    std::vector<BufferState> m_states;
    int64_t m_order = 0;
};

BufferAtPeak describeBuffer(const hlo::Module& module, const hlo::LogicalBuffer& buffer,
    const hlo::BufferAllocation& allocation, int64_t sizeBytes, int64_t unpaddedBytes)
{
    BufferAtPeak out;
    out.logicalBufferId = buffer.id;
    out.allocationIndex = allocation.index;
    out.kind = bufferKindOf(allocation);
    out.indefinite = allocation.isIndefinite();
    out.sizeBytes = sizeBytes;
    out.unpaddedBytes = std::min(unpaddedBytes, sizeBytes);
    out.instruction = module.definingInstruction(buffer);
    out.instructionName = out.instruction ? out.instruction->name
        : !buffer.instructionName.empty() ? buffer.instructionName
                                          : "instruction #" + std::to_string(buffer.instructionId);
    if (!buffer.shapeIndex.empty()) {
        out.instructionName += '{';
        for (size_t i = 0; i < buffer.shapeIndex.size(); ++i)
            out.instructionName += (i ? "," : "") + std::to_string(buffer.shapeIndex[i]);
        out.instructionName += '}';
    }
    if (out.instruction) {
        out.frameworkOp = out.instruction->opName;
        if (!out.instruction->sourceFile.empty())
            out.source = out.instruction->sourceFile
                + (out.instruction->sourceLine > 0 ? ":" + std::to_string(out.instruction->sourceLine) : "");
    }
    if (const hlo::Shape* shape = module.bufferShape(buffer)) {
        out.shape = hlo::shapeToString(*shape);
        out.paddedDims = paddedDimensionsOf(*shape);
    }
    return out;
}

} // namespace

int64_t unpaddedShapeBytes(const hlo::Shape& shape)
{
    return unpaddedBytesAt(shape);
}

ModuleMemory analyzeModuleMemory(const hlo::Module& module, int64_t color)
{
    ModuleMemory out;
    out.name = module.name;
    out.module = &module;
    out.color = color;
    const hlo::BufferAssignment* assignment = module.bufferAssignment.get();
    if (!assignment) {
        out.warnings.push_back(module.bufferAssignmentError.empty() ? "the module carries no buffer assignment"
                                                                    : module.bufferAssignmentError);
        out.timeline.push_back({});
        return out;
    }
    out.warnings = assignment->warnings;

    // Totals over the allocations of the color (xprof's NoteSpecialAllocations).
    int64_t indefiniteUnpadded = 0;
    std::vector<BufferAtPeak> indefiniteBuffers;
    for (const auto& allocation : assignment->allocations) {
        if (allocation.color != color)
            continue;
        out.totalAllocationBytes = saturatingAdd(out.totalAllocationBytes, allocation.size);
        if (allocation.isEntryComputationParameter)
            out.entryParameterBytes = saturatingAdd(out.entryParameterBytes, allocation.size);
        if (allocation.maybeLiveOut)
            out.maybeLiveOutBytes = saturatingAdd(out.maybeLiveOutBytes, allocation.size);
        if (!allocation.isIndefinite())
            continue;
        out.indefiniteBytes = saturatingAdd(out.indefiniteBytes, allocation.size);
        // The allocation stands for its largest logical buffer (as in xprof); it counts at the
        // allocation's size, unpadded at that buffer's unpadded size.
        const hlo::LogicalBuffer* largest = nullptr;
        for (const auto& assigned : allocation.assigned) {
            const hlo::LogicalBuffer* b = assignment->logicalBuffer(assigned.logicalBufferId);
            if (b && (!largest || b->size > largest->size))
                largest = b;
        }
        int64_t unpadded = allocation.size;
        if (largest) {
            const hlo::Shape* shape = module.bufferShape(*largest);
            unpadded = std::min(shape             ? unpaddedShapeBytes(*shape)
                    : largest->unpaddedBytes >= 0 ? largest->unpaddedBytes
                                                  : allocation.size,
                allocation.size);
            indefiniteBuffers.push_back(describeBuffer(module, *largest, allocation, allocation.size, unpadded));
        }
        indefiniteUnpadded = saturatingAdd(indefiniteUnpadded, unpadded);
    }

    HeapSimulation simulation(module, *assignment, color, out.warnings);
    out.heapTrace = simulation.chooseTrace();
    std::vector<BufferAtPeak> simulated;
    int64_t simulatedPeakUnpadded = 0;
    if (out.heapTrace >= 0) {
        const auto& trace = assignment->heapTraces[static_cast<size_t>(out.heapTrace)];
        const auto full = simulation.run(trace, -1, true);
        out.simulatedPeakBytes = full.peak;
        simulatedPeakUnpadded = full.peakUnpadded;
        out.peakPosition = full.peakEvent + 1;
        // Position p = after p events, which is xprof's timeline entry p (taken before event p).
        out.timeline.reserve(full.heap.size());
        for (size_t p = 0; p < full.heap.size(); ++p)
            out.timeline.push_back({static_cast<int64_t>(p), saturatingAdd(full.heap[p], out.indefiniteBytes),
                saturatingAdd(full.unpadded[p], indefiniteUnpadded)});
        if (full.peakEvent >= 0) {
            // A second run up to the peak lists what is alive there, without copying the live set at
            // every new maximum.
            const auto atPeak = simulation.run(trace, full.peakEvent, false);
            for (int32_t index : atPeak.alive) {
                const BufferState& s = simulation.state(index);
                simulated.push_back(describeBuffer(module, *s.buffer, *s.allocation, s.buffer->size, s.unpadded));
            }
        }
    } else {
        out.timeline.push_back({0, out.indefiniteBytes, indefiniteUnpadded});
    }

    out.peakHeapBytes = saturatingAdd(out.simulatedPeakBytes, out.indefiniteBytes);
    out.peakUnpaddedBytes = std::min(out.peakHeapBytes, saturatingAdd(simulatedPeakUnpadded, indefiniteUnpadded));
    out.peakPaddingBytes = out.peakHeapBytes - out.peakUnpaddedBytes;

    out.buffersAtPeak = std::move(indefiniteBuffers);
    out.buffersAtPeak.insert(out.buffersAtPeak.end(), simulated.begin(), simulated.end());
    std::stable_sort(out.buffersAtPeak.begin(), out.buffersAtPeak.end(),
        [](const BufferAtPeak& a, const BufferAtPeak& b) { return a.sizeBytes > b.sizeBytes; });
    return out;
}

MemoryBatchWhatIf whatIfMemoryBatch(const ModuleMemory& memory, int64_t currentBatch, int64_t newBatch)
{
    MemoryBatchWhatIf out;
    // Indefinite allocations without a logical buffer are in the peak but not in the list; they stay.
    out.peakHeapBytes = memory.peakHeapBytes;
    for (const BufferAtPeak& buffer : memory.buffersAtPeak)
        out.peakHeapBytes -= buffer.sizeBytes;
    for (const BufferAtPeak& buffer : memory.buffersAtPeak) {
        int64_t bytes = buffer.sizeBytes;
        const layout::ShapeParseResult parsed = layout::parseShape(buffer.shape);
        if (parsed.ok() && !parsed.shape.isTuple() && currentBatch > 0 && newBatch > 0) {
            hlo::Shape shape = parsed.shape;
            int64_t batchDim = -1;
            if (buffer.instruction && memory.module && buffer.instruction->shape.tupleShapes.empty()) {
                const auto semantics = layout::inferOutputSemantics(*memory.module, *buffer.instruction);
                for (size_t d = 0; d < semantics.size() && d < shape.dimensions.size(); ++d)
                    if (semantics[d] == layout::DimSemantics::Batch && shape.dimensions[d] == currentBatch)
                        batchDim = static_cast<int64_t>(d);
            }
            for (size_t d = 0; batchDim < 0 && d < shape.dimensions.size(); ++d)
                if (shape.dimensions[d] == currentBatch)
                    batchDim = static_cast<int64_t>(d);
            if (batchDim >= 0) {
                const layout::PaddingInfo before = layout::computePadding(shape);
                shape.dimensions[static_cast<size_t>(batchDim)] = newBatch;
                const layout::PaddingInfo after = layout::computePadding(shape);
                ++out.scaledBuffers;
                if (before.paddedBytes > 0 && after.paddedBytes > 0) {
                    const double ratio
                        = static_cast<double>(after.paddedBytes) / static_cast<double>(before.paddedBytes);
                    bytes = static_cast<int64_t>(static_cast<double>(buffer.sizeBytes) * ratio);
                    if (after.paddedBytes == before.paddedBytes)
                        ++out.unchangedPaddedBuffers;
                }
            }
        }
        out.peakHeapBytes = saturatingAdd(out.peakHeapBytes, bytes);
    }
    return out;
}

MemoryReport analyzeMemory(const Profile& profile, int64_t color)
{
    MemoryReport report;
    std::unordered_set<const hlo::Module*> seen;
    for (const auto& program : profile.programs) {
        if (!program.hlo || !program.hlo->bufferAssignment || !seen.insert(program.hlo.get()).second)
            continue;
        report.modules.push_back(analyzeModuleMemory(*program.hlo, color));
    }
    if (color == kHbmColor && !profile.device.generation.empty()) {
        if (const TpuGeneration* generation = findTpuGeneration(profile.device.generation);
            generation && generation->hbmBytesPerDevice > 0) {
            report.hbmCapacityBytes = generation->hbmBytesPerDevice;
            report.capacityNote = std::string(generation->displayName) + ": " + generation->hbmNote;
        }
    }
    return report;
}

} // namespace tpuscope::model
