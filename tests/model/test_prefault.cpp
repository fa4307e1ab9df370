// SPDX-License-Identifier: GPL-3.0-or-later
// populateForWriting (core/prefault.h): the XSpace decoder maps its columns' next pages with it.
#include "core/prefault.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

using namespace tpuscope::model;

namespace {

/// How many of the pages of [p, p + bytes) are resident.
size_t residentPages(const void* p, size_t bytes)
{
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGE_SIZE));
    const uintptr_t first = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
    const size_t count = (reinterpret_cast<uintptr_t>(p) + bytes - first + page - 1) / page;
    std::vector<unsigned char> flags(count);
    if (mincore(reinterpret_cast<void*>(first), count * page, flags.data()) != 0)
        return 0;
    size_t resident = 0;
    for (unsigned char f : flags)
        resident += f & 1;
    return resident;
}

} // namespace

TEST(PopulateForWriting, MapsTheWholePagesOfARangeAndKeepsWhatIsWritten)
{
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGE_SIZE));
    const size_t pages = 64;
    void* mapping = mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(mapping, MAP_FAILED);
    auto* bytes = static_cast<unsigned char*>(mapping);
    bytes[0] = 42; // one page written: resident
    EXPECT_EQ(residentPages(bytes, pages * page), 1u);
    // From the middle of page 0 to the middle of page 40: pages 1-39 are whole, page 0 is written.
    populateForWriting(bytes + page / 2, bytes + 40 * page + page / 2);
#ifdef MADV_POPULATE_WRITE
    if (madvise(bytes + 60 * page, page, MADV_POPULATE_WRITE) == 0) { // the kernel has it
        EXPECT_EQ(residentPages(bytes, 40 * page), 40u);
        EXPECT_EQ(residentPages(bytes + 40 * page, 20 * page), 0u); // the partial page 40 is left alone
    }
#endif
    EXPECT_EQ(bytes[0], 42);
    for (size_t i = page; i < 40 * page; i += 997)
        ASSERT_EQ(bytes[i], 0) << i; // mapped zeroed, never written
    bytes[39 * page] = 7; // and writable
    EXPECT_EQ(bytes[39 * page], 7);
    // Empty and reversed ranges do nothing.
    populateForWriting(bytes + 50 * page, bytes + 50 * page);
    populateForWriting(bytes + 55 * page, bytes + 50 * page);
    EXPECT_EQ(residentPages(bytes + 41 * page, 19 * page), 0u);
    munmap(mapping, pages * page);
}
