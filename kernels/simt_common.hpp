// What the SIMT rungs (steps 02-07) share, so each step's file holds only what it teaches:
// the registry fields of an fp32 GEMM with B stored K×N (the article's layout), the shape
// rules of a kernel that tiles C without edge guards, and the pointers a CTA starts from.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/builder/builder.hpp"
#include "kernels/registry.hpp"

namespace gs::kernels::simt {

// The KernelInfo fields every tiled SIMT rung has: fp32 in and out, B K×N, sm_80 code (runs on
// any later GPU), CTA (x, y) computing the tile.m × tile.n tile of C at column block x and row
// block y, and M, N, K required to be multiples of the tile (tile.k for K) up to 65536: these
// kernels have no edge guards, as in the article. `tile` and `threads` are the rung's as it
// ships; the shape rule and the CTA's tile follow the build's tile (declare_tile_params).
KernelInfo tiled_info(std::string_view id, GemmShape tile, uint32_t threads);

// ---- the tiles as build parameters (steps 04-07) -------------------------------------------
// The article: "in practice you'd autotune the parameters of this algorithm for your specific
// GPU". Each rung declares its tile sizes as build parameters under the article's names in
// lower case (bm, bn, bk: the CTA tile and its K chunk; tm, tn: a thread's results; wm, wn,
// wniter: step 07's warp tile), every choice a power of two, with a rule that says which
// combinations make a kernel and why the others do not.

// A tile parameter: `what` says what it sizes ("rows of C a CTA computes").
BuildParam tile_param(std::string_view name, std::string_view what, uint32_t default_value,
                      std::vector<uint32_t> choices);
// Sets the rung's parameters, its build tile ({bm, bn, bk}) and its rule (KernelInfo::
// check_params), and says in its constraints that the tile is a parameter; `threads` is the
// thread count in the parameters' names ("bm·bn/tm").
void declare_tile_params(KernelInfo& k, std::vector<BuildParam> params,
                         std::function<std::optional<std::string>(const ParamValues&)> rule,
                         std::string_view threads);

// log2 of a power of two (every tile parameter's choice is one): shifts and masks in the
// builds, as the rungs wrote them with fixed tiles (kernels/registry.hpp).
using kernels::log2_exact;

// The parts of a rule, each nullopt when it holds, else the reason naming the values.
// `formula` is how the rung counts its threads ("bm·bn/tm = 64·64/8").
std::optional<std::string> threads_problem(uint32_t threads, std::string_view formula);
// An operand's chunk of rows × cols floats (A: bm × bk, B: bk × bn) copied by `threads` threads
// in rounds, each thread moving `vec` consecutive floats of a row (1: ld.global.f32, 4:
// ld.global.v4): a row must be whole loads, a round whole rows, the chunk whole rounds.
std::optional<std::string> copy_problem(char operand, std::string_view rows_name, uint32_t rows,
                                        std::string_view cols_name, uint32_t cols, uint32_t vec, uint32_t threads);
// The CTA's shared memory (As and Bs): at most ir::kMaxDynamicSmem (227 KiB; above 48 KiB the
// rung asks for it dynamically, chunk_buffers).
std::optional<std::string> smem_problem(uint32_t bytes, std::string_view formula);
// The registers a thread keeps live through the K loop, its results and one K step's operands
// (`formula` names them), against what each of `threads` threads can have: 255, and the CTA's
// 65536 together (ptxas keeps to both under .maxntid, spilling the rest to local memory).
std::optional<std::string> registers_problem(uint32_t registers, std::string_view formula, uint32_t threads);

// The CTA's tile origin (m0 = ctaid.y · BM, n0 = ctaid.x · BN) and the generic-to-global
// pointers of A, B and C.
struct CtaStart {
  builder::Reg tid, m0, n0, A, B, C;
};
CtaStart cta_start(builder::Builder& b, uint32_t bm, uint32_t bn);

// The shared-memory chunks of A and B (As, Bs) and their base addresses; dynamic shared memory
// when the two pass the 48 KiB a kernel may declare statically.
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
