// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A synthetic pod (synth pod:...) written as a log dir into a temporary directory, for the GUI
// tests of the Hosts view, the host groups of the timeline and the straggler in the overview.

#include "analysis/profileanalysis.h"
#include "loader/logdir.h"
#include "synth/synth.h"

#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace tpuscope::test {

struct SynthPodDir
{
    std::unique_ptr<QTemporaryDir> dir = std::make_unique<QTemporaryDir>();
    QString path() const { return dir->path(); }
};

/// Writes the pod scenario `spec` ("pod:hosts=8,chips=4,late=3:input") into a fresh temporary
/// directory (removed with the returned object).
inline SynthPodDir writeSynthPod(const std::string& spec)
{
    SynthPodDir pod;
    EXPECT_TRUE(pod.dir->isValid());
    model::SynthOptions options;
    std::string error;
    EXPECT_TRUE(model::parseSynthScenario(spec, options, error)) << error;
    EXPECT_TRUE(model::writeSyntheticLogdir(options, pod.path().toStdString(), error)) << error;
    return pod;
}

/// Loads the newest run of `dir` and builds its analysis as the window's load job does.
inline model::ProfileAnalysisPtr loadPodAnalysis(const SynthPodDir& pod)
{
    model::LoadResult loaded = model::loadNewestRun(pod.path().toStdString());
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    return loaded.ok() ? model::buildProfileAnalysis(loaded.profile) : nullptr;
}

} // namespace tpuscope::test
