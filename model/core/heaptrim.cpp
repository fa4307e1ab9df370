// SPDX-License-Identifier: GPL-3.0-or-later
#include "heaptrim.h"

// <cstddef> pulls in the C library's feature header, which is what defines __GLIBC__.
#include <cstddef>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define TPUSCOPE_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TPUSCOPE_UNDER_ASAN 1
#endif
#endif

namespace tpuscope::model {

void returnFreedHeapToSystem()
{
#if defined(__GLIBC__) && !defined(TPUSCOPE_UNDER_ASAN)
    malloc_trim(0);
#endif
}

} // namespace tpuscope::model
