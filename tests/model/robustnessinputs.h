// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Hostile inputs made on the fly (protobuf fields by hand, gzip bombs, a synthetic XSpace) for the
// robustness tests of the core (tests/model) and of the command line (tests/cli).

#include "synth/synth.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <string>

namespace tpuscope::test {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
// ASan and TSan reserve terabytes of shadow memory and grow the heap: no prlimit, no RSS bounds.
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

inline std::string varint(uint64_t v)
{
    std::string out;
    do {
        out += static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return out;
}

inline std::string lengthField(int number, const std::string& payload)
{
    return varint(static_cast<uint64_t>(number) << 3 | 2) + varint(payload.size()) + payload;
}

inline std::string varintField(int number, uint64_t value)
{
    return varint(static_cast<uint64_t>(number) << 3) + varint(value);
}

/// An XSpace of one TPU plane holding `lines` empty lines (about 2 bytes each, no events).
inline std::string emptyLinesXSpace(size_t lines)
{
    std::string plane = varint(1 << 3) + varint(1) + lengthField(2, "/device:TPU:0");
    plane.reserve(plane.size() + 2 * lines);
    for (size_t i = 0; i < lines; ++i)
        plane += std::string("\x1a\x00", 2);
    return lengthField(1, plane);
}

/// `copies` gzip members of `chunk` each: inflates to copies × chunk bytes from a tiny file.
inline std::string repeatedMembers(const std::string& chunk, size_t copies)
{
    const std::string member = gzipBytes(chunk, 9);
    std::string out;
    out.reserve(member.size() * copies);
    for (size_t i = 0; i < copies; ++i)
        out += member;
    return out;
}

/// An XSpace with one TPU core whose one op (the metadata of two events on its XLA Ops line) is
/// called `name`.
inline std::string xspaceWithOneOpNamed(const std::string& name)
{
    auto event = [](uint64_t offset) {
        return lengthField(4, varintField(1, 1) + varintField(2, offset) + varintField(3, 10));
    };
    const std::string line = varintField(1, 1) + lengthField(2, "XLA Ops") + event(0) + event(20);
    const std::string metadata
        = lengthField(4, varintField(1, 1) + lengthField(2, varintField(1, 1) + lengthField(2, name)));
    return lengthField(1, varintField(1, 1) + lengthField(2, "/device:TPU:0") + lengthField(3, line) + metadata);
}

inline std::string synthXSpace(const std::string& path)
{
    model::SynthOptions options;
    std::string error;
    EXPECT_TRUE(model::parseSynthScenario("bench:2000", options, error)) << error;
    EXPECT_TRUE(model::writeSyntheticXSpace(options, path, error)) << error;
    return readFile(path);
}

/// A valid XSpace .gz followed by 4.6 MB of zeros and a trailer that claims 4 GiB.
inline std::string lyingTrailerGzip(const std::string& xspace)
{
    return gzipBytes(xspace) + std::string(4'600'000, '\0') + std::string("\xff\xff\xff\xff", 4);
}

/// Entries of a folder (a failed write must leave no temporary file behind).
inline size_t entriesIn(const std::string& dir)
{
    size_t n = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir))
        ++n;
    return n;
}

inline bool isFifo(const std::string& path)
{
    struct stat st
    {
    };
    return ::lstat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

} // namespace tpuscope::test
