// SPDX-License-Identifier: GPL-3.0-or-later
// The Chrome trace decoder's op cache: an event's op found again by its name and args. Header
// only: hash and find run once per event, and the loader is built without link-time inlining.
#pragma once

#include "../core/profile.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace tpuscope::model::chromejson_detail {

/// What makes two events the same op. The views point into the input until the cache copies them.
struct OpKey
{
    bool xla;
    std::string_view name, longName, category, programId;
    bool operator==(const OpKey&) const = default;
};

inline uint64_t hashBytes(std::string_view s, uint64_t h)
{
    h ^= s.size() * 0x9e3779b97f4a7c15ull;
    const char* p = s.data();
    size_t n = s.size();
    while (n >= 8) {
        uint64_t v;
        std::memcpy(&v, p, 8);
        h = (h ^ v) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
        p += 8;
        n -= 8;
    }
    uint64_t v = 0;
    if (n) // an empty view may have a null data(); memcpy's pointers must not be null even for 0 bytes
        std::memcpy(&v, p, n);
    h = (h ^ v) * 0x94d049bb133111ebull;
    return h ^ (h >> 29);
}

/// Op cache: one probe per event in a flat open-addressing table. The hash covers the name and
/// only the ends of the (long) HLO text, so a hit costs one short hash plus one memcmp.
class OpCache
{
public:
    OpCache() { m_slots.resize(1024); }

    static uint64_t hash(const OpKey& k)
    {
        uint64_t h = hashBytes(k.name, k.xla ? 0x51ed27f1u : 0x2545f491u);
        const std::string_view l = k.longName;
        h = hashBytes(l.size() > 32 ? std::string_view(l.data(), 16) : l, h);
        if (l.size() > 32)
            h = hashBytes(l.substr(l.size() - 16), h ^ l.size());
        h = hashBytes(k.category, h);
        if (!k.programId.empty())
            h = hashBytes(k.programId, h);
        return h | 1; // 0 marks an empty slot
    }

    OpId* find(const OpKey& key, uint64_t h)
    {
        const size_t mask = m_slots.size() - 1;
        for (size_t i = h & mask;; i = (i + 1) & mask) {
            Slot& slot = m_slots[i];
            if (slot.hash == 0)
                return nullptr;
            if (slot.hash == h && slot.key == key)
                return &slot.op;
        }
    }

    /// `interned` holds, for name, long name and category, the profile's interned copy when it
    /// is the same text (never moved: the pool is a deque), or an empty view.
    void insert(const OpKey& key, uint64_t h, OpId op, const std::array<std::string_view, 3>& interned)
    {
        if ((m_size + 1) * 2 > m_slots.size())
            grow();
        // The key's views point into the input, whose pages are released as reading goes on:
        // the cache points at the interned text instead, so a big name is stored once, and keeps
        // its own copy only of what differs (escaped or repaired text, the program id).
        auto own = [this](std::string_view v, std::string_view stable = {}) {
            return stable.data() ? stable : std::string_view(m_keyText.emplace_back(v));
        };
        place(Slot {h,
            OpKey {key.xla, own(key.name, interned[0]), own(key.longName, interned[1]), own(key.category, interned[2]),
                own(key.programId)},
            op});
        ++m_size;
    }

private:
    struct Slot
    {
        uint64_t hash = 0;
        OpKey key {};
        OpId op = kNone;
    };

    void place(const Slot& s)
    {
        const size_t mask = m_slots.size() - 1;
        size_t i = s.hash & mask;
        while (m_slots[i].hash != 0)
            i = (i + 1) & mask;
        m_slots[i] = s;
    }

    void grow()
    {
        std::vector<Slot> old(m_slots.size() * 2);
        old.swap(m_slots);
        for (const Slot& s : old)
            if (s.hash)
                place(s);
    }

    std::vector<Slot> m_slots;
    size_t m_size = 0;
    std::deque<std::string> m_keyText;
};

} // namespace tpuscope::model::chromejson_detail
