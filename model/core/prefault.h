// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>

namespace tpuscope::model {

/// The system's memory page size (4096 where it cannot be read).
size_t pageSize();

// Maps the whole pages within [begin, end) writable now (MADV_POPULATE_WRITE), a batch at a time,
// instead of the kernel trapping on the first write to each. For memory about to be written in
// order, a little ahead of the writer: far ahead, the zeroed pages leave the cache before they are
// written, and the batch saves nothing. Does nothing where the kernel (before Linux 5.14) or the
// C library lacks it; the writes then fault as before.
void populateForWriting(const void* begin, const void* end);

} // namespace tpuscope::model
