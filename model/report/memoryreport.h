// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../analysis/memory.h"
#include "report.h"

#include <string>

namespace tpuscope::model {

/// The memory view as text, Markdown or JSON (FORMATS-independent keys:
/// {"modules": [{name, peak_heap_bytes, ..., buffers_at_peak: [...], timeline: [...]}]}).
/// `top` limits the buffers listed in text/Markdown (0 = all); JSON always lists all.
std::string memoryReport(const MemoryReport& report, TableFormat format, size_t top = 0);

} // namespace tpuscope::model
