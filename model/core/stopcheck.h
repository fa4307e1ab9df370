// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <atomic>
#include <cstdint>
#include <stop_token>

namespace tpuscope::model {

/// What a loop over events or steps asks to learn whether its job was stopped: the token is
/// read every `kInterval` iterations only, so the check costs a counter increment per event.
class StopCheck
{
public:
    static constexpr std::uint64_t kInterval = 1024;
    /// Called from every poll (on the job's thread) with the iterations so far and whether stop
    /// was requested; tests use it to hold a job in its loop and to count how far it went.
    using Probe = void (*)(std::uint64_t iterations, bool stopRequested);

    explicit StopCheck(std::stop_token stop)
        : m_stop(std::move(stop))
    {
    }

    /// Counts one iteration; true once stop was requested (seen at the next poll).
    bool stopped()
    {
        if (m_stopped || ++m_iterations % kInterval != 0)
            return m_stopped;
        return poll();
    }
    /// Counts a block of iterations at once, for a loop that checks between blocks of about
    /// kInterval rather than per event; polls when the count passes a multiple of kInterval.
    bool stoppedAfter(std::uint64_t iterations)
    {
        const std::uint64_t before = m_iterations;
        m_iterations += iterations;
        if (m_stopped || before / kInterval == m_iterations / kInterval)
            return m_stopped;
        return poll();
    }
    std::uint64_t iterations() const { return m_iterations; }

    /// Tests only: one process-wide probe (null = none).
    static void setProbe(Probe probe) { probeSlot().store(probe, std::memory_order_release); }

private:
    bool poll()
    {
        m_stopped = m_stop.stop_requested();
        if (const Probe probe = probeSlot().load(std::memory_order_acquire))
            probe(m_iterations, m_stopped);
        return m_stopped;
    }
    static std::atomic<Probe>& probeSlot()
    {
        static std::atomic<Probe> slot {nullptr};
        return slot;
    }

    std::stop_token m_stop;
    std::uint64_t m_iterations = 0;
    bool m_stopped = false;
};

} // namespace tpuscope::model
