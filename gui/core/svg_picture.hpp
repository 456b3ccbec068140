// Pictures of the layout views for notes and slides, laid out as Drawings (drawing.hpp) and
// written as SVG (vector, readable at any size) or PNG (raster_picture.hpp), drawn from the
// same prepared data the views draw (FragmentGrid, SwizzleGrid, BankAccess)
// with the same colours (gui/core/colors.hpp) and labels, so a picture never disagrees with
// the screen. No ImGui: the command line (`gemmscope draw`) and the app's File > Save picture
// both call these, and the tests parse what they write.
//
// Every coloured cell is a <rect class="cell"> carrying the data it stands for (data-row,
// data-col, data-thread / data-lane / data-chunk), so a reader (or a test) can check a cell's
// fill against its owner without measuring coordinates. The background is white: slides and
// printed notes are light.
#pragma once

#include <string>
#include <string_view>

#include "gui/core/colors.hpp"
#include "gui/core/drawing.hpp"
#include "gui/core/fragments_data.hpp"
#include "gui/core/gpu_data.hpp"
#include "gui/core/memory_data.hpp"
#include "gui/core/shared_memory_data.hpp"
#include "gui/core/tiling_data.hpp"
#include "gui/core/tmem_data.hpp"

namespace gs::gui {

// The fragment map: a cell per element, filled with lane_rgb(warp, lane) (or warp_rgb(warp)
// when !color_by_thread), labelled with its thread ("t37", or "l5" for one warp) and value
// ("v6"), row and column numbers every 8, heavier lines between 8x8 blocks as on screen.
Drawing fragment_drawing(const FragmentGrid& g, bool color_by_thread = true);

// The swizzle grid: one row per tile row, columns = physical 16-byte chunks, each cell filled
// with warp_rgb(logical chunk) and labelled "c<logical chunk>" as the view does.
Drawing swizzle_drawing(const SwizzleGrid& g);

// The bank panel of one access: 32 banks across, one row per wavefront, each lane in the banks
// it touches, filled with lane_rgb(warp, lane), labelled with the lane (and "+n" for lanes
// sharing the box), and the verdict underneath.
Drawing bank_drawing(const BankAccess& a);

// One CTA's tensor memory at a moment, as the view draws it: 4 lane quarters x 64 blocks of 8
// columns filled with tmem_cell_rgb(state), the quarters' labels (in red where a warp read
// outside its quarter) with the warps that read them, a tick every 128 columns, each live
// allocation outlined, and the legend. `what` names the kernel and the moment in the title.
Drawing tmem_drawing(const TmemHistory& h, const TmemState& st, std::string_view what);

// The traced CTA's tile of C as the Tiling view draws it: each run of elements one warp stored
// along a row a <rect class="cell" data-row data-col data-cols data-warp> in warp_rgb(warp),
// each warp whose elements fill a box outlined and named, the cursor's thread's elements as
// <rect class="thread">, and above the tile the K chunks of its A and B panels with the chunk
// at the cursor filled. `what` names the kernel and the moment in the title.
Drawing tiling_drawing(const TilingData& d, const TilingCursor& c, std::string_view what);

// The card as the GPU view draws it, from its machine description: a <rect class="gpc"
// data-gpc data-first-sm data-sms> per GPC with a <rect class="sm" data-sm data-ctas> per SM (filled
// in its cluster's cta_rgb where the wave's CTAs hold it, data-traced="1" on the traced CTA's), the
// L2 and HBM as <rect class="memory" data-level data-bytes data-gbs>, and one SM's sub-partitions as
// <rect class="sub" data-sub data-registers data-fma-lanes data-tensor-flops data-warps> over its
// shared memory / L1. `what` names the kernel in the title.
Drawing gpu_drawing(const GpuData& d, std::string_view what);

// The memory hierarchy as the Memory view draws it: per column (the step before, when there is
// one, then the open step) each level a band <rect class="level" data-name data-capacity
// data-latency> with its bandwidth, and under it each part of the prediction's traffic a bar
// <rect class="traffic" data-part data-amount data-unit data-share data-bound> filled to its
// share of the level's bandwidth, the bound in the error colour.
Drawing memory_drawing(const MemoryData& d);

// The same as SVG documents: to_svg of the drawings above.
std::string fragment_svg(const FragmentGrid& g, bool color_by_thread = true);
std::string swizzle_svg(const SwizzleGrid& g);
std::string bank_svg(const BankAccess& a);

}  // namespace gs::gui
