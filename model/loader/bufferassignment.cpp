// SPDX-License-Identifier: GPL-3.0-or-later
#include "bufferassignment.h"

#include "wirereader.h"

namespace tpuscope::model {

namespace {

using wire::Reader;

// Field numbers of xla.BufferAssignmentProto and its parts (FORMATS.md §3.1).
namespace field {
constexpr uint32_t kLogicalBuffers = 1, kBufferAllocations = 3, kHeapSimulatorTraces = 4;
constexpr uint32_t kBufferId = 1, kBufferSize = 2, kBufferDefinedAt = 3, kBufferColor = 4;
constexpr uint32_t kLocationInstructionName = 2, kLocationShapeIndex = 3, kLocationInstructionId = 4;
constexpr uint32_t kAllocIndex = 1, kAllocSize = 2, kAllocThreadLocal = 3, kAllocEntryParameter = 5,
                   kAllocParameterNumber = 6, kAllocMaybeLiveOut = 7, kAllocColor = 8, kAllocAssigned = 9,
                   kAllocTuple = 11, kAllocConstant = 12;
constexpr uint32_t kAssignedBuffer = 1, kAssignedOffset = 2, kAssignedSize = 3;
constexpr uint32_t kTraceEvents = 1, kTraceWholeModule = 2, kTraceAllocationIndex = 3;
constexpr uint32_t kEventKind = 1, kEventBuffer = 2, kEventInstructionName = 4, kEventShareWith = 5;
constexpr uint32_t kHloProtoBufferAssignment = 3;
} // namespace field

void readLocation(Reader r, hlo::LogicalBuffer& buffer, Reader& outer)
{
    while (r.next()) {
        switch (r.field()) {
        case field::kLocationInstructionName:
            buffer.instructionName = std::string(r.bytes());
            break;
        case field::kLocationShapeIndex:
            r.repeatedI64([&](int64_t v) { buffer.shapeIndex.push_back(v); });
            break;
        case field::kLocationInstructionId:
            buffer.instructionId = r.i64();
            break;
        default:
            r.skip();
            break;
        }
    }
    if (r.failed())
        outer.fail(r.error());
}

hlo::LogicalBuffer readLogicalBuffer(Reader r, Reader& outer)
{
    hlo::LogicalBuffer buffer;
    while (r.next()) {
        switch (r.field()) {
        case field::kBufferId:
            buffer.id = r.i64();
            break;
        case field::kBufferSize:
            buffer.size = r.i64();
            break;
        case field::kBufferDefinedAt:
            readLocation(r.sub(), buffer, r);
            break;
        case field::kBufferColor:
            buffer.color = r.i64();
            break;
        default:
            r.skip();
            break;
        }
    }
    if (r.failed())
        outer.fail(r.error());
    return buffer;
}

hlo::BufferAllocation::Assigned readAssigned(Reader r, Reader& outer)
{
    hlo::BufferAllocation::Assigned assigned;
    while (r.next()) {
        switch (r.field()) {
        case field::kAssignedBuffer:
            assigned.logicalBufferId = r.i64();
            break;
        case field::kAssignedOffset:
            assigned.offset = r.i64();
            break;
        case field::kAssignedSize:
            assigned.size = r.i64();
            break;
        default:
            r.skip();
            break;
        }
    }
    if (r.failed())
        outer.fail(r.error());
    return assigned;
}

hlo::BufferAllocation readAllocation(Reader r, Reader& outer)
{
    hlo::BufferAllocation allocation;
    while (r.next()) {
        switch (r.field()) {
        case field::kAllocIndex:
            allocation.index = r.i64();
            break;
        case field::kAllocSize:
            allocation.size = r.i64();
            break;
        case field::kAllocThreadLocal:
            allocation.isThreadLocal = r.u64() != 0;
            break;
        case field::kAllocEntryParameter:
            allocation.isEntryComputationParameter = r.u64() != 0;
            break;
        case field::kAllocParameterNumber:
            allocation.parameterNumber = r.i64();
            break;
        case field::kAllocMaybeLiveOut:
            allocation.maybeLiveOut = r.u64() != 0;
            break;
        case field::kAllocColor:
            allocation.color = r.i64();
            break;
        case field::kAllocAssigned:
            allocation.assigned.push_back(readAssigned(r.sub(), r));
            break;
        case field::kAllocTuple:
            allocation.isTuple = r.u64() != 0;
            break;
        case field::kAllocConstant:
            allocation.isConstant = r.u64() != 0;
            break;
        default:
            r.skip();
            break;
        }
    }
    if (r.failed())
        outer.fail(r.error());
    return allocation;
}

/// Returns false for an event kind this decoder does not know (the event is then dropped).
bool readEvent(Reader r, hlo::HeapEvent& event, int64_t& kind, Reader& outer)
{
    kind = 0;
    while (r.next()) {
        switch (r.field()) {
        case field::kEventKind:
            kind = r.i64();
            break;
        case field::kEventBuffer:
            event.bufferId = r.i64();
            break;
        case field::kEventInstructionName:
            event.instructionName = std::string(r.bytes());
            break;
        case field::kEventShareWith:
            event.shareWithCanonicalId = r.i64();
            break;
        default:
            r.skip();
            break;
        }
    }
    if (r.failed())
        outer.fail(r.error());
    if (kind < 0 || kind > static_cast<int64_t>(hlo::HeapEvent::Kind::ShareWith))
        return false;
    event.kind = static_cast<hlo::HeapEvent::Kind>(kind);
    return true;
}

hlo::HeapSimulatorTrace readTrace(Reader r, Reader& outer, int64_t& unknownKinds, int64_t& lastUnknownKind)
{
    hlo::HeapSimulatorTrace trace;
    while (r.next()) {
        switch (r.field()) {
        case field::kTraceEvents: {
            hlo::HeapEvent event;
            int64_t kind = 0;
            if (readEvent(r.sub(), event, kind, r))
                trace.events.push_back(std::move(event));
            else {
                ++unknownKinds;
                lastUnknownKind = kind;
            }
            break;
        }
        case field::kTraceWholeModule:
            trace.wholeModuleSimulation = r.u64() != 0;
            break;
        case field::kTraceAllocationIndex:
            trace.bufferAllocationIndex = r.i64();
            break;
        default:
            r.skip();
            break;
        }
    }
    if (r.failed())
        outer.fail(r.error());
    return trace;
}

std::string failure(const Reader& r)
{
    return std::string("the buffer assignment could not be decoded: ") + r.error() + " at byte "
        + std::to_string(r.errorOffset()) + " of it";
}

} // namespace

std::shared_ptr<const hlo::BufferAssignment> decodeBufferAssignment(std::string_view bytes, std::string& error)
{
    auto result = std::make_shared<hlo::BufferAssignment>();
    Reader r(bytes);
    int64_t unknownKinds = 0, lastUnknownKind = 0;
    while (r.next()) {
        switch (r.field()) {
        case field::kLogicalBuffers:
            result->logicalBuffers.push_back(readLogicalBuffer(r.sub(), r));
            break;
        case field::kBufferAllocations:
            result->allocations.push_back(readAllocation(r.sub(), r));
            break;
        case field::kHeapSimulatorTraces:
            result->heapTraces.push_back(readTrace(r.sub(), r, unknownKinds, lastUnknownKind));
            break;
        default:
            r.skip();
            break; // buffer_aliases (2) are not needed for the heap
        }
    }
    if (r.failed()) {
        error = failure(r);
        return nullptr;
    }
    if (unknownKinds > 0)
        result->warnings.push_back(std::to_string(unknownKinds) + " heap simulator event(s) of unknown kind (e.g. "
            + std::to_string(lastUnknownKind) + ") were skipped");
    result->buildIndex();
    return result;
}

std::shared_ptr<const hlo::BufferAssignment> decodeHloProtoBufferAssignment(
    std::string_view hloProtoBytes, std::string& error)
{
    Reader r(hloProtoBytes);
    std::string_view payload;
    bool found = false;
    while (r.next()) {
        if (r.field() == field::kHloProtoBufferAssignment && r.type() == wire::Len) {
            payload = r.bytes(); // written once in real files; if repeated, the last one is used
            found = true;
        } else
            r.skip();
    }
    if (r.failed()) {
        error = failure(r);
        return nullptr;
    }
    if (!found)
        return nullptr;
    return decodeBufferAssignment(payload, error);
}

} // namespace tpuscope::model
