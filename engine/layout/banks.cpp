// Shared-memory bank model (facts sheet §8). See banks.hpp.
#include "engine/layout/banks.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "engine/layout/format_detail.hpp"

namespace gs::layout {

namespace {

using detail::str;

// Lanes per phase by access width (facts §8): the whole warp up to 4 B, half-warps for 8 B,
// quarter-warps for 16 B. Each phase moves at most 128 B, one line's worth of banks.
uint32_t lanes_per_phase(uint32_t access_bytes, Phasing phasing) {
    if (access_bytes == 16 && phasing == Phasing::lsu_half_warp) return 16;
    switch (access_bytes) {
        case 1:
        case 2:
        case 4: return 32;
        case 8: return 16;
        case 16: return 8;
        default: break;
    }
    throw std::invalid_argument("shared access width " + str(access_bytes) +
                                " B is invalid: use 1, 2, 4, 8 or 16 bytes");
}

// Distinct words requested from each bank in one phase, in order of first request; the
// position of a word in its bank's list is the wavefront (within the phase) that serves it.
class PhaseBanks {
public:
    // Returns the word's slot on its bank and whether another lane asked for it already.
    std::pair<uint32_t, bool> request(uint32_t word) {
        const uint32_t bank = word % kSmemBanks;
        auto& list = words_[bank];
        auto& count = counts_[bank];
        const auto end = list.begin() + count;
        const auto found = std::find(list.begin(), end, word);
        if (found != end) return {static_cast<uint32_t>(found - list.begin()), true};
        list[count] = word;
        return {count++, false};
    }
    uint32_t wavefronts() const { return *std::max_element(counts_.begin(), counts_.end()); }
    uint32_t distinct_words() const {
        uint32_t n = 0;
        for (uint32_t c : counts_) n += c;
        return n;
    }

private:
    // A lane touches <= 4 consecutive words, i.e. <= 4 different banks, so a bank gets at
    // most one word per lane and at most 32 per phase: 32 slots per bank always suffice.
    // Only the first counts_[bank] slots are ever read, so they are not cleared (4 KB a phase:
    // it was most of a traced shared access's time).
    std::array<std::array<uint32_t, 32>, kSmemBanks> words_;
    std::array<uint32_t, kSmemBanks> counts_{};
};

}  // namespace

uint32_t smem_bank_of(uint32_t byte_addr) { return (byte_addr / kSmemBankBytes) % kSmemBanks; }

BankReport analyze_shared_access(std::span<const uint32_t, 32> lane_addr, uint32_t active_mask,
                                 uint32_t access_bytes, Phasing phasing) {
    const uint32_t phase_lanes = lanes_per_phase(access_bytes, phasing);
    // A half-warp phase can move 256 bytes: its ideal is one wavefront per line's worth.
    const bool ideal_by_bytes = phase_lanes * access_bytes > kSmemBanks * kSmemBankBytes;
    const uint32_t words_per_lane = std::max<uint32_t>(1, access_bytes / kSmemBankBytes);

    BankReport report;
    report.active_mask = active_mask;
    report.lane_wavefront.fill(kInactiveLane);
    report.lane_bank.fill(kInactiveLane);

    for (uint32_t lane = 0; lane < 32; ++lane) {
        if (((active_mask >> lane) & 1) == 0) continue;
        if ((lane_addr[lane] & (access_bytes - 1)) != 0) {  // a power of two (lanes_per_phase): no division
            throw std::invalid_argument("lane " + str(lane) + " shared address " +
                                        detail::hex(lane_addr[lane]) + " is not aligned to its " +
                                        str(access_bytes) + "-byte access");
        }
    }

    for (uint32_t first = 0; first < 32; first += phase_lanes) {
        PhaseBanks banks;
        std::array<uint32_t, 32> lane_slot{};
        bool phase_active = false;
        for (uint32_t lane = first; lane < first + phase_lanes; ++lane) {
            if (((active_mask >> lane) & 1) == 0) continue;
            phase_active = true;
            const uint32_t word0 = lane_addr[lane] / kSmemBankBytes;
            report.lane_bank[lane] = static_cast<uint8_t>(smem_bank_of(lane_addr[lane]));
            for (uint32_t i = 0; i < words_per_lane; ++i) {
                const auto [slot, shared] = banks.request(word0 + i);
                lane_slot[lane] = std::max(lane_slot[lane], slot);
                report.broadcast_used = report.broadcast_used || shared;
            }
        }
        if (!phase_active) continue;
        const uint32_t phase_wavefronts = banks.wavefronts();
        for (uint32_t lane = first; lane < first + phase_lanes; ++lane) {
            if (((active_mask >> lane) & 1) == 0) continue;
            report.lane_wavefront[lane] = static_cast<uint8_t>(report.wavefronts + lane_slot[lane]);
        }
        const uint32_t phase_ideal = ideal_by_bytes ? (banks.distinct_words() + kSmemBanks - 1) / kSmemBanks : 1;
        report.wavefronts += phase_wavefronts;
        report.ideal_wavefronts += phase_ideal;
        // How many times over its ideal the worst phase is served (1: no conflict).
        report.conflict_degree =
            std::max(report.conflict_degree, (phase_wavefronts + phase_ideal - 1) / phase_ideal);
    }
    return report;
}

BankCount count_shared_wavefronts(std::span<const uint32_t, 32> lane_addr, uint32_t active_mask,
                                  uint32_t access_bytes, Phasing phasing) {
    const uint32_t phase_lanes = lanes_per_phase(access_bytes, phasing);
    uint32_t low_bits = 0;
    for (uint32_t m = active_mask; m; m &= m - 1) low_bits |= lane_addr[static_cast<uint32_t>(__builtin_ctz(m))];
    // A misaligned lane: analyze_shared_access names it in the exception.
    if ((low_bits & (access_bytes - 1)) != 0) {
        const BankReport r = analyze_shared_access(lane_addr, active_mask, access_bytes, phasing);
        return {r.wavefronts, r.ideal_wavefronts};
    }
    const bool ideal_by_bytes = phase_lanes * access_bytes > kSmemBanks * kSmemBankBytes;
    const uint32_t shift = access_bytes <= 4 ? 2 : access_bytes == 8 ? 3 : 4;  // log2 of the unit
    const uint32_t slot_mask = ((kSmemBanks * kSmemBankBytes) >> shift) - 1;   // 32, 16 or 8 slots
    const uint32_t words_per_unit = (1u << shift) / kSmemBankBytes;
    const uint32_t phase_all = phase_lanes == 32 ? ~0u : (1u << phase_lanes) - 1;
    BankCount out;
    for (uint32_t first = 0; first < 32; first += phase_lanes) {
        const uint32_t phase_mask = (active_mask >> first) & phase_all;
        if (phase_mask == 0) continue;
        // Up to 4 distinct units per slot in small lists; more (rare) are sorted instead.
        constexpr uint32_t kList = 4;
        std::array<uint8_t, 32> count{};
        std::array<std::array<uint32_t, kList>, 32> units;
        uint32_t distinct = 0, most = 0;
        bool overflow = false;
        for (uint32_t m = phase_mask; m; m &= m - 1) {
            const uint32_t unit = lane_addr[first + static_cast<uint32_t>(__builtin_ctz(m))] >> shift;
            const uint32_t slot = unit & slot_mask;
            const uint32_t n = count[slot];
            bool found = false;
            for (uint32_t i = 0; i < n; ++i) found |= units[slot][i] == unit;
            if (found) continue;
            if (n == kList) {
                overflow = true;
                break;
            }
            units[slot][n] = unit;
            count[slot] = static_cast<uint8_t>(n + 1);
            most = std::max(most, n + 1);
            ++distinct;
        }
        if (overflow) {
            std::array<uint32_t, 32> all{};
            uint32_t k = 0;
            for (uint32_t m = phase_mask; m; m &= m - 1)
                all[k++] = lane_addr[first + static_cast<uint32_t>(__builtin_ctz(m))] >> shift;
            std::sort(all.begin(), all.begin() + k);
            k = static_cast<uint32_t>(std::unique(all.begin(), all.begin() + k) - all.begin());
            count.fill(0);
            most = 0;
            for (uint32_t i = 0; i < k; ++i) most = std::max<uint32_t>(most, ++count[all[i] & slot_mask]);
            distinct = k;
        }
        out.wavefronts += most;
        out.ideal_wavefronts +=
            ideal_by_bytes ? (distinct * words_per_unit + kSmemBanks - 1) / kSmemBanks : 1;
    }
    return out;
}

BankReport analyze_shared_access(std::span<const LaneAccess> accesses, uint32_t access_bytes, Phasing phasing) {
    std::array<uint32_t, 32> addr{};
    uint32_t mask = 0;
    for (const LaneAccess& a : accesses) {
        if (a.lane >= 32) {
            throw std::invalid_argument("lane " + str(a.lane) + " is out of range: use 0..31");
        }
        if (((mask >> a.lane) & 1) != 0) {
            throw std::invalid_argument("lane " + str(a.lane) + " is listed twice");
        }
        mask |= 1u << a.lane;
        addr[a.lane] = a.addr;
    }
    return analyze_shared_access(std::span<const uint32_t, 32>(addr), mask, access_bytes, phasing);
}

}  // namespace gs::layout
