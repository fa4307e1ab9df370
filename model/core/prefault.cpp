// SPDX-License-Identifier: GPL-3.0-or-later
#include "prefault.h"

#include <cstddef>
#include <cstdint>

#include <sys/mman.h>
#include <unistd.h>

namespace tpuscope::model {

size_t pageSize()
{
    static const size_t size = [] {
        const long p = sysconf(_SC_PAGE_SIZE);
        return p > 0 ? static_cast<size_t>(p) : size_t(4096);
    }();
    return size;
}

void populateForWriting(const void* begin, const void* end)
{
#ifdef MADV_POPULATE_WRITE
    const uintptr_t page = pageSize();
    const uintptr_t first = (reinterpret_cast<uintptr_t>(begin) + page - 1) & ~(page - 1);
    const uintptr_t last = reinterpret_cast<uintptr_t>(end) & ~(page - 1);
    if (last > first)
        madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE); // a refusal changes nothing
#else
    (void)begin;
    (void)end;
#endif
}

} // namespace tpuscope::model
