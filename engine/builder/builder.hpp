// The embedded DSL kernel authors write. It records ir::Kernel and never prints text.
//
// Registers are values: `auto warp = tid >> 5;` records one shr.u32 and returns the new
// register. C++ loops unroll at build time; b.loop() emits a real PTX loop so long K stays
// short. Method names mirror PTX mnemonics (mbarrier_try_wait_parity, wgmma_mma_async, ...).
//
//   Builder b("gemm", Arch::sm_90a);
//   Reg tid = b.special(Special::tid_x, "tid");
//   Reg warp = (tid >> 5).named("warp");
//   b.if_(tid == 0, [&] { b.mbarrier_init(bar.at(), 1); });
//
// Every instruction remembers the kernel source line that recorded it (ir::Inst::src): each
// method that records takes a defaulted `Where` (std::source_location, evaluated at the
// caller), and the operators take it through their operand types (SrcAt, RegAt). A method
// that records several instructions, or calls other methods, gives all of them its caller's
// line (Builder::Site), so the line is always the kernel's, never the builder's.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <source_location>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/ir/kernel.hpp"
#include "engine/layout/wgmma_descriptor.hpp"

namespace gs::builder {

using ir::Arch;
using ir::Special;
using ir::Type;

class Builder;
using Where = std::source_location;

// A typed virtual register. Copies name the same register.
class Reg {
 public:
  Reg() = default;
  Reg(Builder* b, ir::RegId id, Type type) : b_(b), id_(id), type_(type) {}
  ir::RegId id() const { return id_; }
  Type type() const { return type_; }
  Builder& builder() const { return *b_; }
  bool valid() const { return b_ != nullptr; }
  // Gives the register a debug name (shown in PTX and the GUI); returns it for chaining.
  Reg named(std::string name) const;

 private:
  Builder* b_ = nullptr;
  ir::RegId id_ = ir::kNone;
  Type type_ = Type::none;
};

// A source operand: a register or an immediate that takes the other operand's type.
struct Src {
  Src(const Reg& r) : operand(ir::Operand::reg(r.id())), type(r.type()), reg(r) {}  // NOLINT
  Src(int v) : operand(ir::Operand::integer(v)) {}                                  // NOLINT
  Src(unsigned v) : operand(ir::Operand::integer(v)) {}                             // NOLINT
  Src(long v) : operand(ir::Operand::integer(v)) {}                                 // NOLINT
  Src(unsigned long v) : operand(ir::Operand::integer(int64_t(v))) {}               // NOLINT
  Src(long long v) : operand(ir::Operand::integer(v)) {}                            // NOLINT
  Src(unsigned long long v) : operand(ir::Operand::integer(int64_t(v))) {}          // NOLINT
  Src(double v) : operand(ir::Operand::floating(v)) {}                              // NOLINT
  bool is_reg() const { return reg.valid(); }
  ir::Operand operand;
  Type type = Type::none;  // none for immediates
  Reg reg;
};

// A memory operand: [reg + offset], [gs_smem + allocation + offset] or [param].
struct Addr {
  ir::Operand operand;
  static Addr at(const Reg& base, int64_t offset = 0) { return {ir::Operand::mem(base.id(), offset)}; }
};

// A shared-memory allocation (offset fixed when it is declared).
struct Smem {
  ir::SmemId id = ir::kNone;
  uint32_t bytes = 0;
  Addr at(int64_t offset = 0) const { return {ir::Operand::mem_smem(id, offset)}; }
};

struct Label {
  ir::LabelId id = ir::kNone;
};

struct Param {
  ir::ParamId id = ir::kNone;
  ir::ParamKind kind = ir::ParamKind::u32;
};

// Which CTAs a tcgen05 op acts for: one CTA, or the CTA pair of cta_group::2 (facts §9).
enum class CtaGroup : uint8_t { one = 1, two = 2 };

class Builder {
 public:
  Builder(std::string kernel_name, Arch target);

  // ---- registers and values ---------------------------------------------------------------
  Reg reg(Type type, std::string name);                  // declared, not yet written
  Reg mov(Type type, const Src& value, std::string name, Where where = Where::current());  // a new register = value
  void mov(const Reg& dst, const Src& value, Where where = Where::current());
  Reg special(Special s, std::string name, Where where = Where::current());              // mov.u32 r, %tid.x
  void rename(const Reg& r, std::string name);
  // Records `op.type dst, a, b[, c]` into a fresh register named `name` (or a temp).
  Reg alu(ir::Op op, Type type, std::initializer_list<Src> srcs, std::string name = {}, Where where = Where::current());
  void alu_into(ir::Op op, const Reg& dst, std::initializer_list<Src> srcs, Where where = Where::current());
  Reg setp(ir::CmpOp cmp, const Src& a, const Src& b, std::string name = {}, Where where = Where::current());
  Reg selp(const Src& a, const Src& b, const Reg& pred, std::string name = {}, Where where = Where::current());
  Reg cvt(Type to, const Reg& from, ir::Rounding rnd = ir::Rounding::none, std::string name = {},
          Where where = Where::current());
  Reg mul_wide(const Src& a, const Src& b, std::string name = {}, Where where = Where::current());  // u32 x u32 -> u64
  Reg fma(const Src& a, const Src& b, const Src& c, std::string name = {}, Where where = Where::current());
  void fma_into(const Reg& dst, const Src& a, const Src& b, const Src& c,
                Where where = Where::current());  // fma.rn: dst = a * b + c

  // ---- parameters -------------------------------------------------------------------------
  Param param(std::string name, ir::ParamKind kind, ir::ParamRole role = ir::ParamRole::none);
  Param tensor_map_param(std::string name, const ir::TensorMapDesc& desc);
  Reg ld_param(const Param& p, std::string name, Where where = Where::current());
  Reg global_ptr(const Param& p, std::string name,
                 Where where = Where::current());          // ld.param.u64 + cvta.to.global
  Reg tensor_map_address(const Param& p, std::string name,
                         Where where = Where::current());  // mov.b64 + cvta.param (facts §4)

  // ---- shared memory ----------------------------------------------------------------------
  Smem shared(std::string name, uint32_t bytes, uint32_t align, ir::SmemUse use,
              layout::Swizzle swizzle = layout::Swizzle::none);
  // The same, declaring what the allocation is for (SharedAlloc's operand, barrier_role and
  // stages), so views read it instead of guessing: `stages` equal tiles of one operand, or
  // `count` mbarriers of 8 bytes where barrier i belongs to stage i.
  Smem operand_stages(std::string name, ir::GemmOperand operand, uint32_t stages, uint32_t stage_bytes,
                      uint32_t align, layout::Swizzle swizzle = layout::Swizzle::none);
  Smem mbarriers(std::string name, ir::BarrierRole role, uint32_t count);
  void use_dynamic_smem(bool dynamic = true);
  Reg smem_address(const Smem& s, int64_t offset, std::string name,
                   Where where = Where::current());  // mov.u32 r, gs_smem+off

  // ---- memory -----------------------------------------------------------------------------
  Reg ld(ir::Op op, Type type, const Addr& addr, std::string name = {}, Where where = Where::current());
  std::vector<Reg> ld_vec(ir::Op op, Type type, int vec, const Addr& addr, std::string name = {},
                          Where where = Where::current());
  void st(ir::Op op, Type type, const Addr& addr, std::initializer_list<Src> values, Where where = Where::current());
  void st(ir::Op op, Type type, const Addr& addr, const std::vector<Reg>& values, Where where = Where::current());
  Reg ld_global(Type t, const Addr& a, std::string name = {},
                Where where = Where::current()) { return ld(ir::Op::ld_global, t, a, std::move(name), where); }
  Reg ld_shared(Type t, const Addr& a, std::string name = {},
                Where where = Where::current()) { return ld(ir::Op::ld_shared, t, a, std::move(name), where); }
  void st_global(Type t, const Addr& a, std::initializer_list<Src> v,
                 Where where = Where::current()) { st(ir::Op::st_global, t, a, v, where); }
  void st_shared(Type t, const Addr& a, std::initializer_list<Src> v,
                 Where where = Where::current()) { st(ir::Op::st_shared, t, a, v, where); }

  // ---- control flow -----------------------------------------------------------------------
  Label label(std::string name);
  void bind(const Label& l, Where where = Where::current());
  void bra(const Label& l, Where where = Where::current());
  void bra_if(const Reg& pred, const Label& l, bool negated = false, Where where = Where::current());
  void if_(const Reg& pred, const std::function<void()>& body,
           Where where = Where::current());   // @!p bra skip; body; skip:
  // A real PTX loop: i = 0; do { body(i); i += 1; } while (i < count). count >= 1.
  void loop(std::string name, const Src& count, const std::function<void(const Reg& i)>& body,
            Where where = Where::current());
  // The same loop, declared as a loop over K: each pass is one K iteration (a K block, or a
  // chunk of K). The app counts and steps K iterations by the passes of these loops, in every
  // warp that runs one (a producer's loads and a consumer's MMAs both); an outer loop over
  // tiles is a plain loop().
  void k_loop(std::string name, const Src& count, const std::function<void(const Reg& i)>& body,
              Where where = Where::current());
  void ret(Where where = Where::current());
  void trap(Where where = Where::current());

  // ---- barriers, fences, mbarriers (facts §6) ----------------------------------------------
  void bar_sync(uint32_t id, uint32_t threads = 0, Where where = Where::current());
  void bar_arrive(uint32_t id, uint32_t threads, Where where = Where::current());
  void fence_proxy_async(Where where = Where::current());
  void fence_mbarrier_init(Where where = Where::current());
  void mbarrier_init(const Addr& bar, uint32_t count, Where where = Where::current());
  void mbarrier_arrive(const Addr& bar, Where where = Where::current());
  void mbarrier_arrive_expect_tx(const Addr& bar, const Src& bytes, Where where = Where::current());
  void mbarrier_expect_tx(const Addr& bar, const Src& bytes, Where where = Where::current());
  // With suspend_hint_ns, the waiting thread may be suspended up to that many nanoseconds
  // before try_wait reports the phase incomplete (instead of a system-dependent limit).
  Reg mbarrier_try_wait_parity(const Addr& bar, const Src& parity, std::string name = {},
                               std::optional<uint32_t> suspend_hint_ns = std::nullopt, Where where = Where::current());
  Reg mbarrier_test_wait_parity(const Addr& bar, const Src& parity, std::string name = {},
                                Where where = Where::current());
  // The wait loop every Hopper kernel writes: retry try_wait.parity until it succeeds.
  void mbarrier_wait(const Addr& bar, const Src& parity, std::optional<uint32_t> suspend_hint_ns = std::nullopt,
                     Where where = Where::current());

  // ---- TMA (facts §4, §5) -------------------------------------------------------------------
  // .multicast::cluster: the box lands at dst's offset in every CTA of cta_mask (a u16 register)
  // and completes its bytes on the mbarrier at bar's offset in each.
  void cp_async_bulk_tensor_load_multicast(const Addr& dst, const Reg& tensor_map, std::initializer_list<Src> coords,
                                           const Addr& bar, const Reg& cta_mask, Where where = Where::current());
  void cp_async_bulk_tensor_load(const Addr& dst, const Reg& tensor_map, std::initializer_list<Src> coords,
                                 const Addr& bar, Where where = Where::current());
  void cp_async_bulk_tensor_store(const Reg& tensor_map, std::initializer_list<Src> coords, const Addr& src,
                                  Where where = Where::current());
  // The .L2::cache_hint form: the store's lines take the L2 eviction policy in `cache_policy` (a
  // b64 register from createpolicy_*). What is stored is the same.
  void cp_async_bulk_tensor_store(const Reg& tensor_map, std::initializer_list<Src> coords, const Addr& src,
                                  const Reg& cache_policy, Where where = Where::current());
  void cp_async_bulk_commit_group(Where where = Where::current());
  void cp_async_bulk_wait_group_read(uint32_t n, Where where = Where::current());
  void prefetch_tensormap(const Reg& tensor_map, Where where = Where::current());
  // createpolicy.fractional.L2::evict_first.b64: a policy (b64) for .L2::cache_hint forms under
  // which the lines accessed are the first L2 evicts (fraction 1.0: all of them).
  Reg createpolicy_fractional_evict_first(std::string name = {}, Where where = Where::current());

  // ---- wgmma (facts §1) ---------------------------------------------------------------------
  // A 64-bit descriptor register for a tile at the shared address in `tile_addr` (u32): the
  // start-address field is computed at run time, the other fields come from `fields`.
  Reg wgmma_descriptor(const Reg& tile_addr, const layout::WgmmaDescriptor& fields, std::string name,
                       Where where = Where::current());
  void wgmma_fence(Where where = Where::current());
  void wgmma_mma_async(uint32_t n, const std::vector<Reg>& acc, const Reg& a_desc, const Reg& b_desc,
                       const Src& scale_d, int scale_a = 1, int scale_b = 1, int trans_a = 0, int trans_b = 0,
                       Where where = Where::current());
  void wgmma_commit_group(Where where = Where::current());
  void wgmma_wait_group(uint32_t n, Where where = Where::current());

  // ---- Blackwell tcgen05 (facts §9; builder_tcgen05.cpp) ---------------------------------
  // CtaGroup::two picks the cta_group::2 spelling: the MMA of one thread covers a CTA pair.
  // ptxas rejects a kernel that mixes the two groups, so a kernel passes one value throughout.
  // TMEM addresses are u32 registers: lane in bits 31-16, column in bits 15-0 (facts §9.1).
  // Warp-collective: the whole warp allocates `ncols` columns (a power of two in 32..512) and
  // the hardware writes the base TMEM address to shared memory at smem_dst.
  void tcgen05_alloc(const Addr& smem_dst, const Src& ncols, CtaGroup group = CtaGroup::one, Where where = Where::current());
  void tcgen05_dealloc(const Src& taddr, const Src& ncols, CtaGroup group = CtaGroup::one, Where where = Where::current());
  void tcgen05_relinquish_alloc_permit(CtaGroup group = CtaGroup::one, Where where = Where::current());
  // One thread issues it: D[d_tmem] (+)= A * B; enable_input_d false overwrites D. A TMEM
  // address in a register other than .b32 is first copied into a .b32 one (ptxas wants that).
  void tcgen05_mma(const Addr& d_tmem, const Reg& a_desc, const Reg& b_desc, const Src& idesc,
                   const Reg& enable_input_d, CtaGroup group = CtaGroup::one, Where where = Where::current());
  // The same with A read from tensor memory at a_tmem.
  void tcgen05_mma_tmem_a(const Addr& d_tmem, const Addr& a_tmem, const Reg& b_desc, const Src& idesc,
                          const Reg& enable_input_d, CtaGroup group = CtaGroup::one, Where where = Where::current());
  // One arrival on bar once this thread's earlier tcgen05 ops complete; the multicast form
  // arrives at bar's offset in every CTA of cta_mask (a 16-bit register: ptxas takes no
  // immediate mask).
  void tcgen05_commit(const Addr& bar, CtaGroup group = CtaGroup::one, Where where = Where::current());
  void tcgen05_commit_multicast(const Addr& bar, const Reg& cta_mask, CtaGroup group = CtaGroup::one, Where where = Where::current());
  // 32x32b.x{x}: thread i reads lane (taddr.lane + i), register j column (taddr.col + j);
  // x is a power of two in 1..128. Use the registers only after tcgen05_wait_ld().
  std::vector<Reg> tcgen05_ld_32x32b(uint32_t x, const Addr& taddr, std::string name = {}, Where where = Where::current());
  void tcgen05_st_32x32b(const Addr& taddr, const std::vector<Reg>& values, Where where = Where::current());
  void tcgen05_wait_ld(Where where = Where::current());
  void tcgen05_wait_st(Where where = Where::current());
  void tcgen05_fence_before_thread_sync(Where where = Where::current());
  void tcgen05_fence_after_thread_sync(Where where = Where::current());
  // Cluster launch control (sm_100a): ask for the next cluster of the grid not yet launched.
  // The 16-byte answer lands at `response` (16-byte aligned shared memory) and completes 16
  // bytes on `bar` (arrive there with expect_tx 16 first, as for a TMA load); read it after the
  // wait with ld_shared_b128 and the queries. After an answer that says none was cancelled,
  // asking again is undefined (PTX ISA).
  void clc_try_cancel(const Addr& response, const Addr& bar, Where where = Where::current());
  Reg ld_shared_b128(const Addr& a, std::string name = {}, Where where = Where::current()) {
    return ld(ir::Op::ld_shared_b128, Type::b128, a, std::move(name), where);
  }
  Reg clc_query_is_canceled(const Reg& response, std::string name = {}, Where where = Where::current());
  Reg clc_query_first_ctaid_x(const Reg& response, std::string name = {}, Where where = Where::current());
  // The 32-bit instruction descriptor as a b32 register (mov of the encoded constant).
  Reg tmem_instr_descriptor(const layout::UmmaInstrDesc& desc, std::string name, Where where = Where::current());
  // The sm_100 shared-memory descriptor of a tile at the shared address in `tile_addr` (u32):
  // like wgmma_descriptor, with the sm_100 version field and layout codes (facts §9.2).
  Reg umma_descriptor(const Reg& tile_addr, const layout::UmmaSmemDescriptor& fields, std::string name, Where where = Where::current());

  // ---- Ampere tensor cores, async copies, clusters (shape of the later ladder steps) --------
  void mma_sync(const std::vector<Reg>& d, const std::vector<Reg>& a, const std::vector<Reg>& b,
                const std::vector<Reg>& c, Where where = Where::current());
  std::vector<Reg> ldmatrix(uint32_t num, bool trans, const Addr& addr, std::string name = {},
                            Where where = Where::current());
  void stmatrix(uint32_t num, bool trans, const Addr& addr, const std::vector<Reg>& values,
                Where where = Where::current());
  // cp.async: `bytes` per thread (cg: 16; ca: 4, 8 or 16); with src_bytes, only that many
  // are read and the rest zero-filled (the edge-tile form).
  void cp_async_cg(const Addr& dst_shared, const Addr& src_global, uint32_t bytes = 16,
                   std::optional<Src> src_bytes = std::nullopt, Where where = Where::current());
  void cp_async_ca(const Addr& dst_shared, const Addr& src_global, uint32_t bytes,
                   std::optional<Src> src_bytes = std::nullopt, Where where = Where::current());
  void cp_async_commit_group(Where where = Where::current());
  void cp_async_wait_group(uint32_t n, Where where = Where::current());
  void cp_async_wait_all(Where where = Where::current());
  Reg mapa(const Reg& addr, const Src& cta_rank, std::string name = {}, Where where = Where::current());
  void barrier_cluster_arrive(Where where = Where::current());
  void barrier_cluster_wait(Where where = Where::current());
  void fence_acq_rel_cluster(Where where = Where::current());
  // ld/st.shared::cluster: the address comes from mapa (or is this CTA's own shared address).
  Reg ld_shared_cluster(Type t, const Addr& a, std::string name = {}, Where where = Where::current()) {
    return ld(ir::Op::ld_shared_cluster, t, a, std::move(name), where);
  }
  void st_shared_cluster(Type t, const Addr& a, std::initializer_list<Src> v,
                         Where where = Where::current()) { st(ir::Op::st_shared_cluster, t, a, v, where); }
  // mbarrier.arrive.shared::cluster.b64 _, [bar]: bar from mapa; the default semantics,
  // release at CTA scope, as CUTLASS's cluster pipelines release a stage. cluster_scope:
  // mbarrier.arrive.release.cluster..., which also orders this thread's earlier memory
  // operations for the whole cluster (timing probes compare the two).
  void mbarrier_arrive_remote(const Addr& bar, Where where = Where::current());
  void mbarrier_arrive_remote(const Addr& bar, bool cluster_scope, Where where = Where::current());
  void setmaxnreg(bool increase, uint32_t regs, Where where = Where::current());
  Reg elect_sync(std::string name = {}, Where where = Where::current());

  // ---- launch and annotations ---------------------------------------------------------------
  // Declares what the warps running `body`'s instructions do (producer, consumer, ...): the
  // model reports each warp entering the region, and the warps view shows it.
  void role(ir::WarpRole role, const std::function<void()>& body);
  void set_launch(const ir::LaunchShape& shape);
  void set_min_ctas_per_sm(uint32_t n);
  // The order in which a persistent kernel's CTAs take C's tiles (ir::OutputTiling::walk).
  void declare_tile_walk(std::vector<uint32_t> walk);
  void comment(std::string text);  // attached to the next recorded instruction
  ir::Inst& record(ir::Inst inst, Where where = Where::current());
  const ir::Kernel& kernel() const { return k_; }
  ir::Kernel finish();

 private:
  Type operand_type(std::initializer_list<Src> srcs, Type fallback) const;
  void cp_async(ir::Op op, const Addr& dst_shared, const Addr& src_global, uint32_t bytes,
                const std::optional<Src>& src_bytes);
  Reg fresh(Type type, std::string name);
  void emit_loop(std::string name, const Src& count, const std::function<void(const Reg& i)>& body, bool over_k,
                 Where where);
  // A 64-bit smem descriptor: the start-address field (bits 0-13) from tile_addr at run time,
  // OR-ed with `constant_bits` (every other field), with `description` as the comment.
  Reg descriptor_at(const Reg& tile_addr, uint64_t constant_bits, const std::string& description, std::string name);

  // While a Site lives, everything recorded gets the location of the outermost one: the
  // caller of the public method the kernel called. A kernel's lambda run by if_/loop/role is
  // kernel code again, so it runs inside a KernelCode, which lets its own calls pin theirs.
  class Site {
   public:
    Site(Builder& b, const Where& where);
    ~Site();
    Site(const Site&) = delete;
    Site& operator=(const Site&) = delete;

   private:
    Builder& b_;
  };
  class KernelCode {
   public:
    explicit KernelCode(Builder& b) : b_(b), depth_(b.site_depth_), site_(b.site_) { b.site_depth_ = 0; }
    ~KernelCode() {
      b_.site_depth_ = depth_;
      b_.site_ = site_;  // the enclosing method's line again, for what it records after the body
    }
    KernelCode(const KernelCode&) = delete;
    KernelCode& operator=(const KernelCode&) = delete;

   private:
    Builder& b_;
    uint32_t depth_;
    Where site_;
  };
  ir::SourceLoc locate(const Where& where);

  ir::Kernel k_;
  std::string pending_comment_;
  uint32_t temp_counter_ = 0;
  Where site_;
  uint32_t site_depth_ = 0;
};

// The operand of an operator, with where the operator was written: operators cannot take a
// defaulted argument, but the conversion to these types happens at the operator's call site,
// so the converting constructors' defaulted Where is the kernel's line.
struct SrcAt {
  template <class T>
    requires std::is_constructible_v<Src, const T&>
  SrcAt(const T& value, Where where = Where::current()) : src(value), where(where) {}  // NOLINT
  Src src;
  Where where;
};
struct RegAt {
  RegAt(const Reg& r, Where where = Where::current()) : reg(r), where(where) {}  // NOLINT
  Reg reg;
  Where where;
};

// ---- operators: each records one instruction and returns a new register ---------------------
Reg operator+(const Reg& a, const SrcAt& b);
Reg operator-(const Reg& a, const SrcAt& b);
Reg operator*(const Reg& a, const SrcAt& b);  // mul.lo for integers, mul for floats
Reg operator/(const Reg& a, const SrcAt& b);
Reg operator%(const Reg& a, const SrcAt& b);
Reg operator<<(const Reg& a, const SrcAt& b);
Reg operator>>(const Reg& a, const SrcAt& b);
Reg operator&(const Reg& a, const SrcAt& b);
Reg operator|(const Reg& a, const SrcAt& b);
Reg operator^(const Reg& a, const SrcAt& b);
Reg operator~(const RegAt& a);
Reg operator==(const Reg& a, const SrcAt& b);  // setp: a predicate register
Reg operator!=(const Reg& a, const SrcAt& b);
Reg operator<(const Reg& a, const SrcAt& b);
Reg operator<=(const Reg& a, const SrcAt& b);
Reg operator>(const Reg& a, const SrcAt& b);
Reg operator>=(const Reg& a, const SrcAt& b);
// In place: `k += 1` records add.u32 %k, %k, 1.
Reg& operator+=(Reg& a, const SrcAt& b);
Reg& operator-=(Reg& a, const SrcAt& b);
Reg& operator^=(Reg& a, const SrcAt& b);

}  // namespace gs::builder
