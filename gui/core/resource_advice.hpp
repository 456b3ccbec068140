// Advice that needs ptxas's word on the kernel's registers (advisories.hpp has the advice the
// trace alone gives). Both wait for the register count (occupancy.hpp: ptxas -v, run off the UI
// thread); while it is pending they say nothing, and when it lands the Problems list gets them.
//  * register spills: ptxas -v reports spill stores or loads. The entry gives the bytes, the
//    registers per thread and the limit they ran into, and points at the PTX line whose SASS
//    holds the first LDL/STL when the SASS listing is there (else at the kernel, saying so).
//  * low occupancy: all of
//      - fewer resident warps per SM than the machine's schedulers × its FMA latency (4 × 4 =
//        16 on the H100): with fewer than 4 warps per scheduler a chain of dependent FMAs leaves
//        issue slots empty, as the timing model issues (one instruction per warp, then its
//        latency);
//      - more CTAs than fit on the machine at once at this occupancy (a grid that fits in one
//        wave runs no faster with more room per SM);
//      - the model's whole-GEMM prediction bound by "latency": the traced CTA's own time, not a
//        pipe (tensor cores, shared memory, L2, HBM) the co-resident CTAs share. The model
//        counts residency from threads and shared memory only, never fewer CTAs than the
//        registers allow, so a latency bound it finds is there with the real count too.
//    A tensor-core kernel that runs one CTA per SM by design and keeps its tensor cores or
//    memory busy is bound by that pipe, so it gets no such advice. The entry names the limiter
//    (occupancy.hpp's binding resource, with its numbers) and the figure one more CTA per SM
//    would need.
#pragma once

#include <memory>
#include <vector>

#include "gui/core/session.hpp"

namespace gs::gui {

struct AppState;
struct Problem;

inline constexpr const char* kSpillAdvice = "advice: register spills";
inline constexpr const char* kOccupancyAdvice = "advice: low occupancy";

// The loaded kernel's spill and occupancy advice from what is known now: none while its
// register count is pending.
std::vector<Problem> resource_advisories(const std::shared_ptr<const LoadedKernel>& k);

// Brings the Problems list's spill and occupancy entries of the kernel on screen up to date
// (adds, replaces in place, removes; the selection follows). Called when the register count or
// the SASS listing lands, and when a kernel is set; cheap and idempotent.
void update_resource_advice(AppState& app);

}  // namespace gs::gui
