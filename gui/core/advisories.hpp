// Advice on performance, the third kind of problem next to errors and warnings (Severity::info,
// kind "advice: ..."), as Nsight Compute's rules give it: each finding measured in the traced
// CTA, against the ideal, pointing at its instruction. A performance mistake (swap-row-col)
// computes the right C and raises no hazard; these say what it costs.
//  * uncoalesced global access: a warp access's 32-byte sectors against the ideal (the distinct
//    bytes its lanes need / 32);
//  * shared-memory bank conflicts: wavefronts against the ideal;
//  * a last wave with idle SMs, when the grid takes two waves or more.
// Register spills and low occupancy wait for ptxas's register count: resource_advice.hpp.
#pragma once

#include <vector>

#include "gui/core/session.hpp"

namespace gs::gui {

struct Problem;

// The advisories of the loaded kernel, worst first within each rule.
std::vector<Problem> advisories(const std::shared_ptr<const LoadedKernel>& k);

}  // namespace gs::gui
