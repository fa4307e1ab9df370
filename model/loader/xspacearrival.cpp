// SPDX-License-Identifier: GPL-3.0-or-later
#include "xspacearrival.h"

#include "inputsource.h"
#include "wirereader.h"
#include "xspacechunks.h"

#include <algorithm>

namespace tpuscope::model::xspace {

ArrivingBytes::ArrivingBytes(std::string_view bytes, ByteSource* source)
    : m_bytes(bytes)
    , m_source(source)
    , m_complete(!source)
{
    arriving(); // a complete source: take all of it now
}

bool ArrivingBytes::arriving()
{
    if (!m_complete && m_source->complete())
        await(UINT64_MAX, {}); // everything there is: extend gives it without waiting
    return !m_complete;
}

void ArrivingBytes::await(uint64_t end, const std::stop_token& stop)
{
    while (!m_complete && m_bytes.size() < end && !stop.stop_requested()) {
        const char* now = m_source->extend(m_bytes.data() + m_bytes.size());
        const auto size = static_cast<size_t>(now - m_bytes.data());
        if (size <= m_bytes.size())
            m_complete = true; // extend gives nothing more only at the end
        else
            m_bytes = std::string_view(m_bytes.data(), size);
    }
}

void ArrivingBytes::awaitField(uint64_t at, const std::stop_token& stop)
{
    if (m_complete)
        return;
    // A tag and a length are at most 10 bytes each.
    await(at + 20, stop);
    if (at >= m_bytes.size())
        return;
    wire::Reader r(m_bytes.data() + at, m_bytes.data() + m_bytes.size(), m_bytes.data());
    uint64_t length = 0;
    if (r.next() && r.type() == wire::Len && r.varint(length))
        await(r.offset() + std::min<uint64_t>(length, UINT64_MAX - r.offset()), stop);
}

bool ArrivingBytes::decodingNowPays(uint64_t bytes) const
{
    return xspace::decodingNowPays(bytes, m_bytes.size(), m_source->fraction(nullptr), m_source->heldBack());
}

bool decodingNowPays(uint64_t planeBytes, uint64_t inflated, double consumed, bool heldBack)
{
    if (heldBack || consumed <= 0)
        return true;
    if (consumed >= 1)
        return false;
    const double left = static_cast<double>(inflated) * (1 - consumed) / consumed;
    return static_cast<double>(planeBytes) <= left;
}

bool moveToOrigin(LocalPlane& local, int64_t originNs)
{
    if (!local.arrivalOriginNs || *local.arrivalOriginNs == originNs)
        return true;
    int64_t shiftNs = 0;
    TimePs shift = 0;
    if (local.nearTimeLimits || __builtin_sub_overflow(*local.arrivalOriginNs, originNs, &shiftNs)
        || __builtin_mul_overflow(shiftNs, 1000, &shift) || shift > kSafeShiftPs || shift < -kSafeShiftPs)
        return false;
    // Every line start, event time and sum the decode checked was within ±kSafeShiftPs, so with
    // the shift each stays inside the int64 range: the same checks pass, the same events are kept.
    // A line that could not be placed stays unplaced only if it cannot be placed now either.
    for (const LocalLine& line : local.lines) {
        TimePs before = 0, after = 0;
        if (lineStartPs(line, *local.arrivalOriginNs, before) != lineStartPs(line, originNs, after))
            return false;
    }
    for (LocalLine& line : local.lines)
        for (TimePs& start : line.start)
            start += shift;
    for (auto& marker : local.stepMarkers)
        marker.start += shift;
    local.arrivalOriginNs = originNs;
    return true;
}

} // namespace tpuscope::model::xspace
