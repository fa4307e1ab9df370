// SPDX-License-Identifier: GPL-3.0-or-later
#include "heaptrim.h"

// <cstddef> pulls in the C library's feature header, which is what defines __GLIBC__.
#include <cstddef>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

// Sanitizers replace malloc with their own allocator, so glibc's arenas were never set up and
// malloc_trim walks a null arena (ThreadSanitizer crashed in mtrim on a worker thread).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TPUSCOPE_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TPUSCOPE_UNDER_SANITIZER 1
#endif
#endif

namespace tpuscope::model {

void returnFreedHeapToSystem()
{
#if defined(__GLIBC__) && !defined(TPUSCOPE_UNDER_SANITIZER)
    malloc_trim(0);
#endif
}

} // namespace tpuscope::model
