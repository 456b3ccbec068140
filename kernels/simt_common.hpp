// What the SIMT rungs (steps 02-07) share, so each step's file holds only what it teaches:
// the registry fields of an fp32 GEMM with B stored K×N (the article's layout), the shape
// rules of a kernel that tiles C without edge guards, and the pointers a CTA starts from.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "engine/builder/builder.hpp"
#include "kernels/registry.hpp"

namespace gs::kernels::simt {

// The KernelInfo fields every tiled SIMT rung has: fp32 in and out, B K×N, sm_80 code (runs on
// any later GPU), CTA (x, y) computing the tile.m × tile.n tile of C at column block x and row
// block y, and M, N, K required to be multiples of the tile (tile.k for K) up to 65536: these
// kernels have no edge guards, as in the article.
KernelInfo tiled_info(std::string_view id, GemmShape tile, uint32_t threads);

// The CTA's tile origin (m0 = ctaid.y · BM, n0 = ctaid.x · BN) and the generic-to-global
// pointers of A, B and C.
struct CtaStart {
  builder::Reg tid, m0, n0, A, B, C;
};
CtaStart cta_start(builder::Builder& b, uint32_t bm, uint32_t bn);

// The shared-memory chunks of A and B (As, Bs) and their base addresses.
struct Chunks {
  builder::Smem As, Bs;
  builder::Reg as, bs;  // u32 shared addresses of As[0] and Bs[0]
};
Chunks chunk_buffers(builder::Builder& b, uint32_t as_bytes, uint32_t bs_bytes);

// The K loop of steps 03-07, one chunk of `bk` per iteration: copy() fills As and Bs, bar.sync
// waits for the whole chunk (left out when sync_after_load is false: step 03's mistake),
// compute() uses it, a second bar.sync keeps any warp from overwriting a chunk another still
// reads, and a_ptr moves bk columns right in A, b_ptr bk rows down in B (N columns).
void chunk_loop(builder::Builder& b, uint32_t K, uint32_t bk, uint32_t N, builder::Reg& a_ptr,
                builder::Reg& b_ptr, const std::function<void()>& copy, const std::function<void()>& compute,
                bool sync_after_load = true);

// `count` fp32 accumulators set to 0, named res0...
std::vector<builder::Reg> zero_accumulators(builder::Builder& b, uint32_t count);

// res[i·n.size() + j] += m[i] · n[j]: one outer product of a column of A and a row of B.
void outer_product(builder::Builder& b, std::vector<builder::Reg>& res, const std::vector<builder::Reg>& m,
                   const std::vector<builder::Reg>& n);

// &X[row][col] of a row-major fp32 matrix with `cols` columns: base + (row·cols + col)·4.
builder::Reg element_ptr(builder::Builder& b, const builder::Reg& base, const builder::Reg& row, uint32_t cols,
                         const builder::Reg& col, std::string name);

// Stores a thread's rows × cols results (res[r·cols + c]) at c_ptr, row r at r·N·4 bytes,
// `vec` consecutive floats per store (1 or 4).
void store_results(builder::Builder& b, const builder::Reg& c_ptr, uint32_t N, uint32_t rows, uint32_t cols,
                   const std::vector<builder::Reg>& res, int vec);

}  // namespace gs::kernels::simt
