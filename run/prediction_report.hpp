// `gemmscope sim A --vs B`: the two predictions side by side, part by part, and why one is
// faster (engine/model/prediction_compare.hpp), as the text the command prints.
#pragma once

#include <string>

#include "engine/model/prediction_compare.hpp"
#include "kernels/registry.hpp"

namespace gs::run {

// The comparison's sentences, then each limit's time for the whole GEMM in both kernels.
std::string comparison_table(const model::timing::PredictionComparison& c, const std::string& name_a,
                             const std::string& name_b, kernels::GemmShape shape, const model::timing::Machine& card);

}  // namespace gs::run
