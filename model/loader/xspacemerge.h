// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The merge of decoded planes into the ProfileBuilder. The builder is not thread-safe, so
// mergeOps and mergePlane run on the calling thread, plane by plane in file order: ops get
// global ids in the order a sequential decode would give them (first use first), so the
// profile does not depend on the number of decode threads. remapOps touches one plane only and
// may run on a worker. Internal to the XSpace decoder.

#include "xspaceplane.h"

#include <vector>

namespace tpuscope::model::xspace {

/// Interns the strings of the metadata events the plane used and adds their ops; returns the
/// plane-local op index → global OpId map.
std::vector<OpId> mergeOps(ProfileBuilder& builder, LocalPlane& local);

/// Local op indices → global OpIds, in place.
void remapOps(LocalPlane& local, const std::vector<OpId>& remap);

/// Plane stats, programs, step markers and tracks (columns are moved, not copied).
void mergePlane(ProfileBuilder& builder, LocalPlane& local);

} // namespace tpuscope::model::xspace
