// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A small profile with known time shares and utilizations, for the op tree model and the op table.

#include "core/profile.h"

#include <QAbstractItemModel>
#include <QStringList>

namespace tpuscope::test::optree {

using namespace tpuscope::model;

constexpr TimePs kT = 1'000'000'000; // 1 ms: 100 of these make up the whole op time
constexpr double kPeakTflops = 100;

struct SyntheticOp
{
    const char* name;
    const char* category;
    uint64_t program;
    int occurrences;
    double timeUnits; // total, in kT
    double utilization; // FLOPS utilization to give the op
};

// Time shares: dot.main 89 %, fusion.high 5 %, copy.1 4.5 %, fusion.low 1 % (the flag boundary),
// fusion.tiny 0.5 %. Utilization is set through the FLOPs: flops = util · time_ps · peak_TFLOPs.
const SyntheticOp kOps[] = {
    {"dot.main", "convolution", 1, 1, 89, 0.5},
    {"fusion.high", "output fusion", 2, 5, 5, 0.6},
    {"copy.1", "data formatting", 1, 3, 4.5, 0.0},
    {"fusion.low", "loop fusion", 1, 2, 1, 0.10},
    {"fusion.tiny", "loop fusion", 2, 1, 0.5, 0.01},
};

inline ProfilePtr makeProfile()
{
    ProfileBuilder b;
    const PlaneId plane = b.addPlane("/device:TPU:0");
    b.profile().planes[plane].peakTflops = kPeakTflops;
    b.profile().planes[plane].peakHbmGbps = 1000;
    const TrackId track = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
    b.addProgram(1, "jit_a", nullptr);
    b.addProgram(2, "jit_b", nullptr);
    TimePs t = 0;
    for (const SyntheticOp& s : kOps) {
        OpInfo info;
        info.name = b.intern(s.name);
        info.category = b.intern(s.category);
        info.programId = s.program;
        info.hasProgramId = true;
        info.isXlaOp = true;
        const TimePs duration = static_cast<TimePs>(s.timeUnits * kT / s.occurrences);
        info.flops = s.utilization * static_cast<double>(duration) * kPeakTflops;
        info.bytesAccessed = 1e6;
        const OpId op = b.addOp(info);
        for (int i = 0; i < s.occurrences; ++i) {
            b.addEvent(track, t, duration, op);
            t += duration;
        }
    }
    return b.finish();
}

inline QModelIndex findRow(const QAbstractItemModel& model, const QString& name, const QModelIndex& parent = {})
{
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex index = model.index(row, 0, parent);
        if (index.data().toString() == name)
            return index;
        if (const QModelIndex child = findRow(model, name, index); child.isValid())
            return child;
    }
    return {};
}

inline int countOpRows(const QAbstractItemModel& model)
{
    int rows = 0;
    for (int g = 0; g < model.rowCount(); ++g)
        rows += model.rowCount(model.index(g, 0));
    return rows;
}

inline QStringList childNames(const QAbstractItemModel& model, const QModelIndex& parent)
{
    QStringList names;
    for (int row = 0; row < model.rowCount(parent); ++row)
        names << model.index(row, 0, parent).data().toString();
    return names;
}

} // namespace tpuscope::test::optree
