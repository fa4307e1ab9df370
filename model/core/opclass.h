// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What kind of work an op does, as plain data. The analysis layer decides it once per profile
// (analysis/opmodel.h); a share file records the decision so that its reader need not guess it
// again from less evidence (OpInfo::recordedKind).

#include <cstdint>
#include <optional>
#include <string_view>

namespace tpuscope::model {

enum class OpClass : uint8_t {
    Compute, // an ordinary XLA op that computes (dot, reduce, dynamic-update-slice, ...)
    ComputeFusion, // a fusion that computes (loop, input, output, convolution fusion, ...)
    CustomKernel, // custom-call, Pallas or Mosaic kernel: its cost is the kernel's own estimate
    SyncCollective, // all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute
    AsyncCollectiveStart, // the start half of an asynchronous collective
    AsyncCollectiveDone, // its done half: the core waits there for the transfer
    CopyStart, // the start half of an asynchronous copy between device memories (HBM, VMEM, ...)
    CopyDone,
    HostTransferStart, // the start half of an asynchronous copy to or from host memory, S(5)
    HostTransferDone,
    HostTransfer, // a synchronous copy to or from host memory
    DataFormatting, // copy, transpose, reshape or data formatting within device memory
    Infeed,
    Outfeed,
    Control, // while, conditional, call, send/recv and other control flow; program and step markers
    Unattributed, // time a file does not break down into ops ("(not broken down) ...")
};

/// Which collective, when the op is one.
enum class CollectiveKind : uint8_t {
    None,
    AllReduce,
    AllGather,
    ReduceScatter,
    AllToAll,
    CollectivePermute,
    Fused, // an async collective fusion ("async-collective-start.3"): its kind is in its body
};

/// Which way a host transfer moves data.
enum class TransferDirection : uint8_t { None, ToHost, ToDevice };

/// "compute fusion", "async collective start", ... (also the share file's spelling).
const char* opClassName(OpClass opClass);
std::optional<OpClass> opClassFromName(std::string_view name);
/// "all-reduce", "all-gather", ..., "async collective" for Fused; "" for None.
const char* collectiveKindName(CollectiveKind kind);
std::optional<CollectiveKind> collectiveKindFromName(std::string_view name);
/// "to host", "to device", "".
const char* transferDirectionName(TransferDirection direction);
std::optional<TransferDirection> transferDirectionFromName(std::string_view name);

/// The class of an op as a file that carries it recorded it (share files): the analysis takes it
/// instead of deciding again from the op's name and HLO, which a share file may keep only in part.
struct RecordedOpKind
{
    OpClass opClass = OpClass::Compute;
    CollectiveKind collective = CollectiveKind::None;
    TransferDirection direction = TransferDirection::None;
    int8_t memorySpace = -1; // a copy's destination memory space (0 HBM, 1 VMEM, 5 host); -1 unknown
    double transferBytes = 0; // the array an async copy or host transfer moves, per occurrence
};

} // namespace tpuscope::model
