// SPDX-License-Identifier: GPL-3.0-or-later
// Reading one Chrome trace event object (chromejson.cpp's decoder interprets it): the fields the
// decoder uses, as views into the input, so reading an event copies nothing.
#pragma once

#include "jsontokenizer.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace tpuscope::model::chromejson_detail {

// Args the loader understands; everything else is only kept (as views) for counter events.
enum ArgSlot : uint8_t {
    kArgName,
    kArgSortIndex,
    kArgHloCategory,
    kArgLongName,
    kArgModelFlops,
    kArgFlops,
    kArgBytesAccessed,
    kArgShapeWithLayout,
    kArgTfOp,
    kArgSource,
    kArgDeviceDuration,
    kArgDeviceOffset,
    kArgProgramId,
    kArgDeduplicatedName,
    kArgStepNum, // StepTraceAnnotation's step number on a host event
    kArgSlotCount,
    kArgOther = kArgSlotCount,
};

struct ArgValue
{
    json::RawString value; // string contents, or the number's text
    bool present = false;
    bool isString = false;
};

struct GenericArg
{
    json::RawString key;
    ArgValue value;
};

/// One event as read from the text; views point into the input buffer.
struct RawEvent
{
    char ph = 0;
    bool hasPid = false, hasTid = false, hasTs = false, hasDur = false, hasName = false;
    ArgValue pid, tid;
    std::string_view ts, dur;
    json::RawString name;
    ArgValue slots[kArgSlotCount];
    std::vector<GenericArg> args; // every scalar arg, for C events

    void reset()
    {
        ph = 0;
        hasPid = hasTid = hasTs = hasDur = hasName = false;
        pid = tid = ArgValue();
        for (auto& slot : slots)
            slot.present = false;
        args.clear();
    }
};

/// Reads the event object at the cursor into `ev` (reset first), skipping fields and args the
/// decoder does not use. The empty object TSL writes last reads as an event without a phase. False
/// on a syntax error, which the cursor keeps.
bool readEvent(json::Cursor& cursor, RawEvent& ev);

} // namespace tpuscope::model::chromejson_detail
