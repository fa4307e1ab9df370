// SPDX-License-Identifier: GPL-3.0-or-later
// Reading one Chrome trace event object into a RawEvent (chromejsonevent.h).
#include "chromejsonevent.h"

namespace tpuscope::model::chromejson_detail {

namespace {

using json::RawString;

ArgSlot argSlot(std::string_view key)
{
    switch (key.size()) {
    case 4:
        if (key == "name")
            return kArgName;
        break;
    case 5:
        if (key == "flops")
            return kArgFlops;
        if (key == "tf_op")
            return kArgTfOp;
        break;
    case 6:
        if (key == "source")
            return kArgSource;
        break;
    case 8:
        if (key == "step_num")
            return kArgStepNum;
        break;
    case 9:
        if (key == "long_name")
            return kArgLongName;
        break;
    case 10:
        if (key == "sort_index")
            return kArgSortIndex;
        if (key == "program_id")
            return kArgProgramId;
        break;
    case 11:
        if (key == "model_flops")
            return kArgModelFlops;
        break;
    case 12:
        if (key == "hlo_category")
            return kArgHloCategory;
        break;
    case 14:
        if (key == "bytes_accessed")
            return kArgBytesAccessed;
        break;
    case 17:
        if (key == "shape_with_layout")
            return kArgShapeWithLayout;
        if (key == "deduplicated_name")
            return kArgDeduplicatedName;
        break;
    case 18:
        if (key == "device_duration_ps")
            return kArgDeviceDuration;
        break;
    case 16:
        if (key == "device_offset_ps")
            return kArgDeviceOffset;
        break;
    default:
        break;
    }
    return kArgOther;
}

bool readScalarOrString(json::Cursor& cursor, ArgValue& out)
{
    const char c = cursor.peek();
    if (c == '"') {
        out.present = cursor.string(out.value);
        out.isString = true;
        return out.present;
    }
    out.isString = false;
    out.value.escaped = false;
    if (c == '-' || (c >= '0' && c <= '9')) {
        out.present = cursor.number(out.value.raw);
        return out.present;
    }
    out.present = false;
    return cursor.skipValue(3);
}

constexpr size_t kMaxOtherArgBytes = 4096;

bool readArgs(json::Cursor& cursor, RawEvent& ev)
{
    if (cursor.peek() != '{')
        return cursor.skipValue(2);
    cursor.consume('{');
    if (cursor.consume('}'))
        return true;
    do {
        RawString key;
        if (!cursor.string(key) || !cursor.expect(':', "expected ':' after a key"))
            return false;
        const char c = cursor.peek();
        if (c == '{' || c == '[' || c == 't' || c == 'f' || c == 'n') {
            if (!cursor.skipValue(3))
                return false;
            continue;
        }
        const ArgSlot slot = key.escaped ? kArgOther : argSlot(key.raw);
        ArgValue value;
        if (slot == kArgOther && c == '"') {
            // Only counter events read other args, and only as numbers: a long string is
            // streamed past, never held.
            bool kept = false;
            if (!cursor.stringIfShort(value.value, kMaxOtherArgBytes, kept))
                return false;
            if (!kept)
                continue;
            value.present = value.isString = true;
        } else if (!readScalarOrString(cursor, value)) {
            return false;
        }
        if (slot != kArgOther)
            ev.slots[slot] = value;
        ev.args.push_back({key, value});
    } while (cursor.consume(','));
    return cursor.expect('}', "expected ',' or '}' in args");
}

// ts/dur are numbers, but some writers quote them.
bool readTime(json::Cursor& cursor, std::string_view& out, bool& has)
{
    const char c = cursor.peek();
    if (c == '"') {
        RawString s;
        if (!cursor.string(s))
            return false;
        out = s.raw;
        has = true;
        return true;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        has = cursor.number(out);
        return has;
    }
    has = false;
    return cursor.skipValue(2);
}

} // namespace

bool readEvent(json::Cursor& cursor, RawEvent& ev)
{
    ev.reset();
    if (!cursor.expect('{', "expected an event object"))
        return false;
    if (cursor.consume('}'))
        return true; // the trailing {} TSL writes
    do {
        RawString key;
        if (!cursor.string(key) || !cursor.expect(':', "expected ':' after a key"))
            return false;
        const std::string_view k = key.raw;
        bool ok = true;
        if (k == "ph") {
            RawString ph;
            if (cursor.peek() == '"') {
                ok = cursor.string(ph);
                ev.ph = ph.raw.empty() ? '?' : ph.raw[0];
            } else {
                ok = cursor.skipValue(2);
                ev.ph = '?';
            }
        } else if (k == "ts") {
            ok = readTime(cursor, ev.ts, ev.hasTs);
        } else if (k == "dur") {
            ok = readTime(cursor, ev.dur, ev.hasDur);
        } else if (k == "pid") {
            ok = readScalarOrString(cursor, ev.pid);
            ev.hasPid = ev.pid.present;
        } else if (k == "tid") {
            ok = readScalarOrString(cursor, ev.tid);
            ev.hasTid = ev.tid.present;
        } else if (k == "name") {
            if (cursor.peek() == '"') {
                ok = cursor.string(ev.name);
                ev.hasName = ok;
            } else {
                ok = cursor.skipValue(2);
            }
        } else if (k == "args") {
            ok = readArgs(cursor, ev);
        } else {
            ok = cursor.skipValue(2);
        }
        if (!ok)
            return false;
    } while (cursor.consume(','));
    return cursor.expect('}', "expected ',' or '}' in an event");
}

} // namespace tpuscope::model::chromejson_detail
