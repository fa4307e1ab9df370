// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// "Copy for Forum": a profile as GitHub-flavoured Markdown that reads well in a forum post or an
// issue: the headline (device, span, utilizations with their cost coverage), the top ops, the top
// advice with its numbers and the layer/source of its evidence, and, optionally, the
// machine-readable share block folded away in a <details> block under it.
//
// Everything is rendered from the share file built with the chosen redaction (the same
// model::buildShareFile the share file uses), so the post never says more than the share file:
// there is one redaction implementation. Plain C++ (no Qt).

#include "../analysis/profileanalysis.h"
#include "sharefile.h"

#include <string>

namespace tpuscope::model {

/// The readable part stays under this (GitHub comments take 65,536 characters, Discourse
/// forums 32,000 by default; 8 KB is a screenful that still reads as a post).
constexpr size_t kForumReadableLimitBytes = 8 * 1024;
/// The whole clipboard text, share block included, stays under the share file's own target size
/// (sharefile.h: "small enough to attach to a forum post, target < 64 KB"); a bigger share block
/// is left out with a note.
constexpr size_t kForumShareLimitBytes = 64 * 1024;
/// Op names in the table are elided in the middle beyond this many characters.
constexpr size_t kForumNameWidth = 60;

struct ForumPostOptions
{
    ShareRedaction redaction = defaultRedaction();
    size_t topOps = 10;
    size_t maxAdvice = 3;
    bool includeShareBlock = false;
    size_t readableLimit = kForumReadableLimitBytes;
    size_t shareLimit = kForumShareLimitBytes;

    /// The capture machine's paths, user and host names are nobody's business on a forum.
    static ShareRedaction defaultRedaction() { return defaultShareRedaction(); }
};

struct ForumPost
{
    std::string markdown;
    size_t opsShown = 0;
    size_t adviceShown = 0;
    bool shareBlockIncluded = false;
    bool shareBlockOmitted = false; // asked for, but over options.shareLimit
    std::string error; // nothing to share (no TPU ops)
    bool ok() const { return error.empty(); }
};

/// The post for a loaded profile's analysis. It builds the share file with the chosen redaction and
/// reads it back (a load and a breakdown of the small share profile): run it off the GUI thread
/// (TraceSession::requestForumPost).
ForumPost buildForumPost(const ProfileAnalysis& analysis, const ForumPostOptions& options = {});

} // namespace tpuscope::model
