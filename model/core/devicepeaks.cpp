// SPDX-License-Identifier: GPL-3.0-or-later
#include "devicepeaks.h"

#include <algorithm>
#include <cctype>

namespace tpuscope::model {

const std::vector<TpuGeneration>& tpuGenerations()
{
    constexpr double kGiB = 1024.0 * 1024 * 1024;
    // Per TensorCore = per chip ÷ TensorCores per chip (FORMATS.md §6.1).
    static const std::vector<TpuGeneration> generations {
        {"v2", "TPU v2", 2, 22.5, 300.0, "HBM bandwidth unverified (600 GB/s per chip, third-party)", 8.0 * kGiB,
            "16 GiB per chip, 8 GiB per TensorCore (one device per core)"},
        {"v3", "TPU v3", 2, 61.5, 450.0, "cloud.google.com/tpu/docs/v3", 16.0 * kGiB,
            "32 GiB per chip, 16 GiB per TensorCore (one device per core)"},
        {"v4", "TPU v4", 2, 137.5, 600.0, "cloud.google.com/tpu/docs/v4; megacore devices may report per chip",
            32.0 * kGiB, "32 GiB per chip (one megacore device per chip)"},
        {"v5e", "TPU v5e", 1, 197.0, 819.0, "cloud.google.com/tpu/docs/v5e", 16e9, "16 GB per chip", 400.0,
            "cloud.google.com/tpu/docs/v5e (400 GB/s over 4 ports)"},
        {"v5p", "TPU v5p", 2, 229.5, 1382.5, "cloud.google.com/tpu/docs/v5p; megacore devices may report per chip",
            95e9, "95 GB per chip (one megacore device per chip; a newer table says 95 GiB)", 1200.0,
            "docs.cloud.google.com/tpu/docs/v5p (bidirectional ICI bandwidth per chip)"},
        {"v6e", "TPU v6e", 1, 918.0, 1638.0, "docs.cloud.google.com/tpu/docs/v6e", 32e9, "32 GB per chip", 800.0,
            "docs.cloud.google.com/tpu/docs/v6e (800 GB/s over 4 ports)"},
        {"v7x", "TPU v7x", 2, 1153.5, 3690.0, "docs.cloud.google.com/tpu/docs/tpu7x (7380 GB/s HBM per chip)",
            192.0 * kGiB, "192 GiB per chip; whether a device is a chip or one of its TensorCores is unverified",
            1200.0, "docs.cloud.google.com/tpu/docs/tpu7x (bidirectional ICI bandwidth per chip)"},
    };
    return generations;
}

const TpuGeneration* findTpuGeneration(std::string_view text)
{
    std::string lower;
    for (char c : text)
        lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto has = [&](std::string_view needle) { return lower.find(needle) != std::string::npos; };
    const char* key = nullptr;
    // device_type_string values: "TPU v6 Lite" (v6e), "TPU v5 Lite"/"TPU v5e", "TPU v5p", "TPU v4", "TPU v7x"...
    if (has("v7") || has("ironwood"))
        key = "v7x";
    else if (has("v6") || has("trillium"))
        key = "v6e";
    else if (has("v5p"))
        key = "v5p";
    else if (has("v5e") || has("v5 lite") || has("v5lite") || has("v5litepod"))
        key = "v5e";
    else if (has("v5"))
        key = "v5p";
    else if (has("v4"))
        key = "v4";
    else if (has("v3"))
        key = "v3";
    else if (has("v2"))
        key = "v2";
    if (!key)
        return nullptr;
    const auto& all = tpuGenerations();
    auto it
        = std::find_if(all.begin(), all.end(), [&](const TpuGeneration& g) { return std::string_view(g.key) == key; });
    return it == all.end() ? nullptr : &*it;
}

} // namespace tpuscope::model
