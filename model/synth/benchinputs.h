// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Seeded benchmark inputs of PERFORMANCE.md: Appendix A (Chrome JSON) and Appendix B (XSpace),
// streamed to disk with an optional gzip copy written in the same pass. Measurement data only:
// callers write them to a temp dir, never into git.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tpuscope::model {

struct Profile;

/// Arg style of the Chrome JSON generator: "appendixA" (long_name + flops, as PERFORMANCE.md
/// Appendix A) or "tsl" (the args jax.profiler really writes: hlo_category, long_name,
/// model_flops, bytes_accessed, shape_with_layout, tf_op, source, device_offset_ps,
/// device_duration_ps).
enum class JsonStyle { AppendixA, Tsl };

/// Writes an XSpace of `n` XLA-op events over `cores` TPU cores (8 in PERFORMANCE.md Appendix B;
/// 1 for a single-chip profile, whose one plane holds every event), plus one step event per 1000
/// ops on a "Steps" line, fixed seed. Writes `plainPath` and, when
/// `gzPath` is not empty, the same bytes gzip-compressed at `gzLevel` in the same pass. Files are
/// written under a temporary name and renamed when complete, so an existing file is always
/// whole. Returns false (with `error`) when a file cannot be written.
bool generateXSpace(uint64_t n, const std::string& plainPath, const std::string& gzPath = {}, int gzLevel = 6,
    std::string* error = nullptr, int cores = 8);

/// Writes a Chrome trace JSON of `n` 'X' events (every 1000th on a core is a step event) over 8
/// TPU-core "XLA Ops" tracks with a 3000-name vocabulary, fixed seed, as PERFORMANCE.md Appendix
/// A; gz as for generateXSpace.
bool generateChromeJson(uint64_t n, JsonStyle style, const std::string& plainPath, const std::string& gzPath = {},
    int gzLevel = 6, std::string* error = nullptr);

/// A profile of `events` XLA-op events over `cores` TPU cores built directly through
/// ProfileBuilder (no file), with steps and modules: the timeline frame-time benchmark's input.
std::shared_ptr<const Profile> benchTimelineProfile(size_t events, int cores);

/// A serialized xla.HloProto whose buffer assignment has `n` buffers: the memory-view
/// benchmark's input.
std::string benchHloProto(int64_t n);

} // namespace tpuscope::model
