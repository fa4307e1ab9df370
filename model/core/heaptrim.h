// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace tpuscope::model {

// Hands freed heap pages back to the system (glibc's malloc_trim). Loads grow columns by doubling
// and worker threads allocate from their own arenas; without this, resident memory after a load
// stays well above what the profile holds. It does nothing where it cannot help or is unsafe:
// outside glibc, and under AddressSanitizer, whose allocator replaces malloc but not
// malloc_trim, so the call would walk glibc arenas that were never set up.
void returnFreedHeapToSystem();

} // namespace tpuscope::model
