// SPDX-License-Identifier: GPL-3.0-or-later
// The three readings of one XEvent in pass 2 of the XSpace decoder (loader/xspaceevent.h): the
// straight-through reading of the shape protobuf writes, the fast loop and the checked reader.
// Each reading may decline an event, and the next one then reads it; an event a reading accepts
// must give what the checked reader gives.

#include "loader/xspaceevent.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

using namespace tpuscope::model;
using namespace tpuscope::model::xspace;

namespace {

void putVarint(std::vector<uint8_t>& out, uint64_t v)
{
    while (v >= 0x80) {
        out.push_back(static_cast<uint8_t>(v | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<uint8_t>(v));
}

PlaneContext statContext()
{
    PlaneContext ctx;
    const std::pair<int64_t, const char*> stats[] = {
        {1, "flops"}, {2, "device_offset_ps"}, {3, "device_duration_ps"}, {4, "step_num"}, {300, "device_offset_ps"}};
    for (const auto& [id, name] : stats)
        ctx.statMeta[id] = StatMeta {name, statKindFromName(name)};
    ctx.buildDenseKinds();
    return ctx;
}

bool sameFields(const EventFields& a, const EventFields& b)
{
    return a.metadataId == b.metadataId && a.offsetPs == b.offsetPs && a.durationPs == b.durationPs
        && a.occurrences == b.occurrences && a.aggregated == b.aggregated && a.deviceOffset == b.deviceOffset
        && a.deviceDuration == b.deviceDuration && a.stepNum == b.stepNum;
}

/// A value whose varint takes 1 to 10 bytes, zero now and then.
uint64_t someValue(std::mt19937_64& random)
{
    switch (random() % 8) {
    case 0:
        return 0;
    case 1:
        return random() % 128;
    case 2:
        return 128 + random() % 16000;
    case 3:
        return random() % (uint64_t(1) << 56); // up to 8 bytes
    case 4:
        return (uint64_t(1) << 56) + random() % (uint64_t(1) << 62); // 9 bytes
    case 5:
        return static_cast<uint64_t>(-static_cast<int64_t>(1 + random() % 1000)); // a negative int64: 10
    default:
        return 200'000 + random() % 40'000'000; // a duration in ps: 3 or 4 bytes
    }
}

size_t varintSize(uint64_t v)
{
    size_t n = 1;
    for (; v >= 0x80; v >>= 7)
        ++n;
    return n;
}

/// One generated event and whether it has the shape parseEventInOrder reads.
struct GeneratedEvent
{
    std::vector<uint8_t> bytes;
    bool inOrderShape = true;
};

void putStat(GeneratedEvent& event, std::mt19937_64& random)
{
    std::vector<uint8_t> stat;
    const int64_t ids[] = {1, 2, 3, 4, 300, 7};
    const int64_t id = ids[random() % 6];
    stat.push_back(0x08);
    putVarint(stat, static_cast<uint64_t>(id));
    bool simple = id < 128;
    switch (random() % 7) {
    case 0:
        break; // no value (zero)
    case 1:
    case 2: {
        const uint8_t tags[] = {0x18, 0x20, 0x38};
        const uint64_t v = someValue(random);
        stat.push_back(tags[random() % 3]);
        putVarint(stat, v);
        simple = simple && varintSize(v) <= 8;
        break;
    }
    case 3: // double_value: fixed64
        stat.push_back(0x11);
        for (int i = 0; i < 8; ++i)
            stat.push_back(static_cast<uint8_t>(random()));
        simple = false;
        break;
    case 4: // str_value
        stat.push_back(0x2a);
        stat.push_back(3);
        stat.insert(stat.end(), {'a', 'b', 'c'});
        simple = false;
        break;
    case 5: // a second metadata id after the value: the last one counts
        stat.push_back(0x18);
        putVarint(stat, random() % 100);
        stat.push_back(0x08);
        putVarint(stat, static_cast<uint64_t>(ids[random() % 6]));
        simple = false;
        break;
    default:
        stat.push_back(0x18);
        putVarint(stat, random() % 2000);
        break;
    }
    event.bytes.push_back(0x22);
    putVarint(event.bytes, stat.size());
    event.bytes.insert(event.bytes.end(), stat.begin(), stat.end());
    event.inOrderShape = event.inOrderShape && simple && stat.size() < 128;
}

GeneratedEvent generateEvent(std::mt19937_64& random)
{
    GeneratedEvent event;
    struct Field
    {
        uint8_t tag;
        uint64_t value;
    };
    std::vector<Field> fields;
    for (uint8_t tag : {uint8_t(0x08), uint8_t(0x10), uint8_t(0x18)})
        if (random() % 5 != 0)
            fields.push_back({tag, someValue(random)});
    if (random() % 10 == 0) { // aggregated: num_occurrences
        fields.push_back({0x28, someValue(random)});
        event.inOrderShape = false;
    }
    if (fields.size() > 1 && random() % 10 == 0) {
        std::swap(fields.front(), fields.back()); // not the order protobuf writes
        event.inOrderShape = false;
    }
    for (const Field& f : fields) {
        event.bytes.push_back(f.tag);
        putVarint(event.bytes, f.value);
        event.inOrderShape = event.inOrderShape && varintSize(f.value) <= 8;
    }
    const int stats = static_cast<int>(random() % 3);
    for (int s = 0; s < stats; ++s)
        putStat(event, random);
    if (random() % 12 == 0 && !event.bytes.empty()) { // cut short: a varint or stat runs past the end
        event.bytes.resize(event.bytes.size() - 1 - random() % std::min<size_t>(3, event.bytes.size()));
        event.inOrderShape = false;
    }
    return event;
}

} // namespace

TEST(XEventReadings, WordVarintReadsUpToEightBytesAndDeclinesLonger)
{
    for (int bytes = 1; bytes <= 10; ++bytes) {
        const uint64_t value = bytes == 10 ? ~uint64_t(0) : (uint64_t(1) << (7 * bytes)) - 3;
        std::vector<uint8_t> buffer;
        putVarint(buffer, value);
        ASSERT_EQ(buffer.size(), static_cast<size_t>(bytes));
        buffer.resize(buffer.size() + 8, 0xff); // readable, and no varint ends there
        const uint8_t* p = buffer.data();
        uint64_t out = 0;
        if (bytes <= 8) {
            ASSERT_TRUE(wordVarint(p, out)) << bytes;
            EXPECT_EQ(out, value) << bytes;
            EXPECT_EQ(p, buffer.data() + bytes);
        } else {
            EXPECT_FALSE(wordVarint(p, out)) << bytes;
        }
    }
}

TEST(XEventReadings, AnEventAReadingAcceptsGivesWhatTheCheckedReaderGives)
{
    const PlaneContext ctx = statContext();
    std::mt19937_64 random(20261204);
    int inOrderAccepted = 0, fastAccepted = 0, checkedFailed = 0;
    const int events = 20000;
    for (int n = 0; n < events; ++n) {
        const GeneratedEvent event = generateEvent(random);
        for (uint8_t padding : {uint8_t(0x00), uint8_t(0xff)}) {
            std::vector<uint8_t> buffer = event.bytes;
            buffer.resize(buffer.size() + 8, padding);
            const uint8_t* begin = buffer.data();
            const uint8_t* end = begin + event.bytes.size();
            for (bool statsApply : {true, false}) {
                EventFields checked;
                const bool ok
                    = parseEventChecked(wire::Reader(chars(begin), chars(end), chars(begin)), ctx, statsApply, checked);
                checkedFailed += ok ? 0 : 1;
                EventFields inOrder;
                if (parseEventInOrder(begin, end, ctx, statsApply, inOrder)) {
                    ++inOrderAccepted;
                    ASSERT_TRUE(ok) << "event " << n;
                    ASSERT_TRUE(sameFields(inOrder, checked)) << "event " << n << " stats " << statsApply;
                } else {
                    // The shape it is for is never declined, whether stats are read or not.
                    ASSERT_FALSE(event.inOrderShape) << "event " << n << " stats " << statsApply;
                }
                EventFields fast;
                if (parseEventFast(begin, end, ctx, statsApply, fast)) {
                    ++fastAccepted;
                    ASSERT_TRUE(ok) << "event " << n;
                    ASSERT_TRUE(sameFields(fast, checked)) << "event " << n << " stats " << statsApply;
                }
            }
        }
    }
    // Each reading is exercised: most events take the first, and some are damaged.
    EXPECT_GT(inOrderAccepted, events);
    EXPECT_GT(fastAccepted, inOrderAccepted);
    EXPECT_GT(checkedFailed, 0);
}

TEST(XEventReadings, ADeviceSpanStatIsReadInEachReading)
{
    const PlaneContext ctx = statContext();
    // metadata 5, offset 1000, duration 20, device_offset_ps (2) = 1500, device_duration_ps (3) = 30,
    // step_num (4) = 9; then the same with the device offset under id 300 (two bytes).
    for (const bool wideId : {false, true}) {
        std::vector<uint8_t> bytes = {0x08, 5, 0x10};
        putVarint(bytes, 1000);
        bytes.insert(bytes.end(), {0x18, 20});
        std::vector<uint8_t> offsetStat = {0x08};
        putVarint(offsetStat, wideId ? 300 : 2);
        offsetStat.push_back(0x18);
        putVarint(offsetStat, 1500);
        bytes.push_back(0x22);
        bytes.push_back(static_cast<uint8_t>(offsetStat.size()));
        bytes.insert(bytes.end(), offsetStat.begin(), offsetStat.end());
        bytes.insert(bytes.end(), {0x22, 4, 0x08, 3, 0x18, 30, 0x22, 4, 0x08, 4, 0x20, 9});
        const size_t size = bytes.size();
        bytes.resize(size + 8, 0);
        const uint8_t* begin = bytes.data();
        EventFields inOrder, checked;
        const bool accepted = parseEventInOrder(begin, begin + size, ctx, true, inOrder);
        EXPECT_EQ(accepted, !wideId); // a stat id of two bytes goes to the next reading
        ASSERT_TRUE(
            parseEventChecked(wire::Reader(chars(begin), chars(begin + size), chars(begin)), ctx, true, checked));
        EXPECT_EQ(checked.deviceOffset, 1500);
        EXPECT_EQ(checked.deviceDuration, 30);
        EXPECT_EQ(checked.stepNum, 9);
        if (accepted) {
            EXPECT_TRUE(sameFields(inOrder, checked));
        }
    }
}
