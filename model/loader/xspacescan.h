// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Pass 1 of the XSpace decoder: where a plane's fields are, its metadata and stats, each line's
// header (its event count, and where its chunks start) and the HLO programs with their sizes, so
// the decoder can budget and plan before it decodes an event. Workers run it, one plane each; it
// touches only the plane it is given and reads the input.

#include "wirereader.h"
#include "xspacechunks.h"
#include "xspaceplane.h"

#include <string>
#include <string_view>

namespace tpuscope::model {
class ByteSource;
}

namespace tpuscope::model::xspace {

/// "corrupt or truncated XSpace: WHY at byte offset N (WHERE)".
std::string describeDamage(const wire::Reader& r, const char* where);

class PlaneScanner
{
public:
    /// `base` is the input's first byte: offsets in messages count from it.
    PlaneScanner(const char* base, const LoadLimits& limits, ChunkSize chunking);

    /// Where the fields of a plane are; `error` says what is damaged, if anything.
    PlaneSpans scanPlane(std::string_view blob, std::string& error) const;
    /// Metadata, stats, line headers and HLO programs of `local` (whose spans and kind are set).
    /// With `releaseLinesTo`, each line's pages are handed back once its header is read (a mapped
    /// file too large to keep mapped until pass 2).
    void scanPlaneContents(LocalPlane& local, ByteSource* releaseLinesTo) const;

private:
    LineHeader scanLineHeader(std::string_view blob) const;
    void collectHloPrograms(LocalPlane& local) const;

    const char* m_base;
    const LoadLimits& m_limits;
    ChunkSize m_chunking;
};

} // namespace tpuscope::model::xspace
