// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The merge of decoded planes into the ProfileBuilder. The builder is not thread-safe, so
// mergeOps and mergePlane run on the calling thread, plane by plane in file order: ops get
// global ids in the order a sequential decode would give them (first use first), so the
// profile does not depend on the number of decode threads. remapOps touches one plane only and
// may run on a worker. Internal to the XSpace decoder.

#include "xspaceplane.h"

#include <atomic>
#include <vector>

namespace tpuscope::model::xspace {

/// Interns the strings of the metadata events the plane used and adds their ops; returns the
/// plane-local op index → global OpId map.
std::vector<OpId> mergeOps(ProfileBuilder& builder, const LocalPlane& local);

/// Local op indices → global OpIds, in place.
void remapOps(LocalPlane& local, const std::vector<OpId>& remap);

/// Plane stats, programs, step markers and tracks (columns are moved, not copied).
void mergePlane(ProfileBuilder& builder, LocalPlane& local);

/// The most events a preview copies: enough to fill a window, few enough to copy, sort and index in
/// a moment (a 1e8-event file shows its first ~1 % of events, on every core already decoded).
inline constexpr size_t kPreviewEvents = size_t(1) << 20;

/// Adds to `preview` (a copy of the builder, see ProfileBuilder::sendPreview) the ops and tracks of
/// the decoded planes `done` (file order; none of them merged yet), each track cut at one time for
/// all: the latest time that keeps the events copied within `maxEvents`, and the programs of a
/// decoded metadata plane. The planes are only read.
void addPreviewPlanes(ProfileBuilder& preview, const std::vector<const LocalPlane*>& done, size_t maxEvents);

/// Sends the builder's preview (ProfileBuilder::sendPreview) of the planes decoded so far (those
/// whose `decoded` flag is set), each track up to one time for all, at most kPreviewEvents events
/// copied; nothing while no plane with events is decoded.
void offerXSpacePreview(
    ProfileBuilder& builder, const std::vector<LocalPlane>& locals, const std::vector<std::atomic<bool>>& decoded);

} // namespace tpuscope::model::xspace
