// SPDX-License-Identifier: GPL-3.0-or-later
#include "opclass.h"

#include <array>
#include <utility>

namespace tpuscope::model {

namespace {

constexpr std::array<std::pair<OpClass, const char*>, 16> kClassNames {{
    {OpClass::Compute, "compute"},
    {OpClass::ComputeFusion, "compute fusion"},
    {OpClass::CustomKernel, "custom kernel"},
    {OpClass::SyncCollective, "collective"},
    {OpClass::AsyncCollectiveStart, "async collective start"},
    {OpClass::AsyncCollectiveDone, "async collective done"},
    {OpClass::CopyStart, "copy start"},
    {OpClass::CopyDone, "copy done"},
    {OpClass::HostTransferStart, "host transfer start"},
    {OpClass::HostTransferDone, "host transfer done"},
    {OpClass::HostTransfer, "host transfer"},
    {OpClass::DataFormatting, "data formatting"},
    {OpClass::Infeed, "infeed"},
    {OpClass::Outfeed, "outfeed"},
    {OpClass::Control, "control"},
    {OpClass::Unattributed, "unattributed"},
}};

constexpr std::array<std::pair<CollectiveKind, const char*>, 7> kCollectiveNames {{
    {CollectiveKind::None, ""},
    {CollectiveKind::AllReduce, "all-reduce"},
    {CollectiveKind::AllGather, "all-gather"},
    {CollectiveKind::ReduceScatter, "reduce-scatter"},
    {CollectiveKind::AllToAll, "all-to-all"},
    {CollectiveKind::CollectivePermute, "collective-permute"},
    {CollectiveKind::Fused, "async collective"},
}};

constexpr std::array<std::pair<TransferDirection, const char*>, 3> kDirectionNames {{
    {TransferDirection::None, ""},
    {TransferDirection::ToHost, "to host"},
    {TransferDirection::ToDevice, "to device"},
}};

template <typename E, size_t N> const char* nameOf(const std::array<std::pair<E, const char*>, N>& names, E value)
{
    for (const auto& [v, name] : names)
        if (v == value)
            return name;
    return "";
}

template <typename E, size_t N>
std::optional<E> valueOf(const std::array<std::pair<E, const char*>, N>& names, std::string_view text)
{
    for (const auto& [v, name] : names)
        if (text == name)
            return v;
    return std::nullopt;
}

} // namespace

const char* opClassName(OpClass opClass)
{
    return nameOf(kClassNames, opClass);
}

std::optional<OpClass> opClassFromName(std::string_view name)
{
    return valueOf(kClassNames, name);
}

const char* collectiveKindName(CollectiveKind kind)
{
    return nameOf(kCollectiveNames, kind);
}

std::optional<CollectiveKind> collectiveKindFromName(std::string_view name)
{
    return valueOf(kCollectiveNames, name);
}

const char* transferDirectionName(TransferDirection direction)
{
    return nameOf(kDirectionNames, direction);
}

std::optional<TransferDirection> transferDirectionFromName(std::string_view name)
{
    return valueOf(kDirectionNames, name);
}

} // namespace tpuscope::model
