// exec_ldmatrix / exec_stmatrix: the warp-collective moves of 8×8 b16 matrices between shared
// memory and the mma fragment layout (PTX ISA "ldmatrix", "stmatrix").
//
//   ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 {d..}, [addr]
//   stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 [addr], {s..}
//
// Lanes 0..8·num-1 each give the address of one 16-byte row: lane i row i%8 of matrix i/8
// (the other lanes' addresses are not read). Register j of every lane holds two b16 of
// matrix j, placed as the op traits' map of the op says (layout::ldmatrix_layout and
// stmatrix_layout, one table; facts §2, checked on the GPU by `gemmscope probe ldmatrix`):
// without .trans lane l holds row l/4, columns 2(l%4) and 2(l%4)+1; with .trans the same
// positions of the transposed matrix. stmatrix is the inverse.
//
// Banks: each matrix is one phase of the bank model, its 8 row addresses the 8 lanes of a
// 16-byte quarter-warp (layout/banks.hpp), so a tile whose 8 rows sit 128 bytes apart takes 8
// wavefronts per matrix unless a swizzle spreads them. Hazards: every row's words go through
// the same checks as ld/st.shared (races, cp.async and TMA in flight, uninitialised reads).
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include <fmt/format.h>

#include "engine/ir/signature.hpp"
#include "engine/layout/fragments.hpp"
#include "engine/layout/op_traits.hpp"
#include "engine/model/exec_mem_forms.hpp"
#include "engine/model/exec_context.hpp"
#include "engine/model/operands.hpp"

namespace gs::model {

namespace {

constexpr uint32_t kRowBytes = 16;  // one row of an 8×8 b16 matrix

// Where each lane's values lie in the rows, from the op traits' map of the op (op_traits.def:
// ldmatrix, ldmatrix_trans, stmatrix, stmatrix_trans; what the Fragments view and the probe
// read), tabulated once per op and count: half h of register j of lane l is at byte
// byte[l][j][h] of row row[l][j][h] (8·matrix + r, an index into Rows::ptr). FragmentMap::at
// per lane and value, with its range checks, took 7% of ampere_ldmatrix's time.
struct MatrixPlaces {
  std::array<std::array<std::array<uint8_t, 2>, 4>, 32> row{};
  std::array<std::array<std::array<uint8_t, 2>, 4>, 32> byte{};  // 2 · column
  // The map gives lane l of register j the 4 bytes at 4·(l%4) of row 8j + l/4, its two halves in
  // order (ldmatrix and stmatrix without .trans): each row is then four lanes' words as they lie,
  // copied 16 bytes a row (exec_ldmatrix's straight form).
  bool rows_in_order = false;
};

const MatrixPlaces& matrix_places(uint32_t num, ir::Op op) {
  static const auto places = [] {
    std::array<std::array<MatrixPlaces, 3>, 4> t{};
    const ir::Op ops[4] = {ir::Op::ldmatrix, ir::Op::ldmatrix_trans, ir::Op::stmatrix, ir::Op::stmatrix_trans};
    for (size_t o = 0; o < 4; ++o)
      for (int x : {1, 2, 4}) {
        const layout::FragmentMap map = layout::op_traits(ops[o]).maps[0].build(x);
        MatrixPlaces& p = t[o][size_t(std::countr_zero(unsigned(x)))];
        for (int l = 0; l < 32; ++l)
          for (int v = 0; v < 2 * x; ++v) {
            const layout::Coord rc = map.at(l, v);  // row 8·matrix + r, column c
            p.row[size_t(l)][size_t(v / 2)][size_t(v % 2)] = uint8_t(rc.row);
            p.byte[size_t(l)][size_t(v / 2)][size_t(v % 2)] = uint8_t(2 * rc.col);
          }
        bool in_order = true;
        for (int l = 0; l < 32; ++l)
          for (int j = 0; j < x; ++j)
            for (int h = 0; h < 2; ++h)
              in_order = in_order && p.row[size_t(l)][size_t(j)][size_t(h)] == 8 * j + l / 4 &&
                         p.byte[size_t(l)][size_t(j)][size_t(h)] == 4 * (l % 4) + 2 * h;
        p.rows_in_order = in_order;
      }
    return t;
  }();
  const size_t o = op == ir::Op::ldmatrix ? 0 : op == ir::Op::ldmatrix_trans ? 1 : op == ir::Op::stmatrix ? 2 : 3;
  return places[o][std::countr_zero(num)];
}

// The checks and row addresses shared by both directions; false when the instruction cannot
// run (a count other than 1, 2, 4, or a row outside shared memory: reported).
struct Rows {
  uint32_t num = 0;
  std::array<uint32_t, 32> addr{};   // lane i: row i%8 of matrix i/8 (lanes < 8·num)
  std::array<uint8_t*, 32> ptr{};
  uint32_t mask = 0;                 // the lanes that give an address
  uint32_t bank_mask = 0;            // those whose row is in bounds and 16-byte aligned
};

// resolve_rows's loop where every row is inside shared memory, 16-byte aligned, and every word
// of it has nothing to report (memform::word_is_quiet): the loop would then report nothing and
// only record each word's access, which this does row by row. False where any row is not so;
// the loop then runs as always (a load's words noted here it notes again the same, and a
// store's are checked before any is noted).
#if defined(__x86_64__) && defined(__GNUC__)
// quiet_rows' address loop, four lanes an instruction: lane l's row address base[l] + imm (its
// low 32 bits, memory_address32) into addr[l] for l < n (8, 16 or 32), and whether every row
// lies inside [kSmemBaseAddress, + size) and is 16-byte aligned, as smem_ptr asks.
__attribute__((target("avx2"))) bool row_addresses_avx2(const uint64_t* base, int64_t imm, uint32_t n, uint64_t size,
                                                        uint32_t* addr) {
  const __m256i add = _mm256_set1_epi64x(imm - int64_t(timing::kSmemBaseAddress));
  // A row is bad when its offset o = u32(a - kSmemBaseAddress) > size - 16, where limit - o is
  // negative (o and the limit are below 2^32), or a % 16 != 0.
  const __m256i limit = _mm256_set1_epi64x(int64_t(size - kRowBytes));
  const __m256i low32 = _mm256_set1_epi64x(0xFFFFFFFF);
  const __m256i pick = _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0);
  __m256i bad = _mm256_setzero_si256();
  for (uint32_t l = 0; l < n; l += 4) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + l));
    const __m256i o = _mm256_and_si256(_mm256_add_epi64(v, add), low32);  // u32(a - kSmemBaseAddress)
    const __m256i a = _mm256_add_epi64(v, _mm256_set1_epi64x(imm));
    // Bits 60-63: o past the limit (all four), or a's four low bits (misaligned).
    bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_sub_epi64(limit, o), _mm256_slli_epi64(a, 60)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(addr + l),
                     _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(a, pick)));
  }
  return _mm256_testz_si256(bad, _mm256_set1_epi64x(int64_t(uint64_t(0xF) << 60))) != 0;
}
#endif

// `base`: the address register's lanes, `imm` the operand's offset. It needs no ExecContext, so
// that exec_ldmatrix's straight path (direct_ldmatrix) takes it too.
template <bool kStore>
bool quiet_rows(Cta& c, const Warp& warp, const uint64_t* base, int64_t imm, Rows& r) {
  const uint64_t size = c.smem.size();
  if (size < kRowBytes || c.smem_word_state.size() * 4 < size) return false;
  const uint32_t n = 8 * r.num;
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = cpu_has_avx2();
  if (avx2) {
    if (!row_addresses_avx2(base, imm, n, size, r.addr.data())) return false;
  } else
#endif
  {
    uint32_t bad = 0;
    for (uint32_t l = 0; l < n; ++l) {
      const uint32_t a = uint32_t(base[l] + uint64_t(imm));  // memory_address32
      r.addr[l] = a;
      // As smem_ptr: inside [kSmemBaseAddress, + size) and aligned to the 16-byte row.
      bad |= uint32_t(uint64_t(a - timing::kSmemBaseAddress) > size - kRowBytes) | (a & (kRowBytes - 1));
    }
    if (bad != 0) return false;
  }
  const uint32_t rank = c.launch.cluster_rank, epoch = c.barrier_epoch, release = c.releases + 1;
  SmemWord* state = c.smem_word_state.data();
  if constexpr (kStore) {
    for (uint32_t l = 0; l < n; ++l) {
      const uint32_t w = (r.addr[l] - timing::kSmemBaseAddress) / 4;
      if (c.any_tma_pending(w, w + kRowBytes / 4)) return false;
      for (uint32_t i = 0; i < kRowBytes / 4; ++i)
        if (!memform::word_is_quiet<true>(c, w + i, false, warp, rank, epoch)) return false;
    }
    // The unfenced range widened once, by the rows' lowest and highest words (a note per word
    // made a chain through memory of the range's two bounds).
    uint32_t lo = ~0u, hi = 0;
    for (uint32_t l = 0; l < n; ++l) {
      const uint32_t w = (r.addr[l] - timing::kSmemBaseAddress) / 4;
      ++c.smem_writes;  // smem_ptr's, per row
      for (uint32_t i = 0; i < kRowBytes / 4; ++i) memform::note_write(c, state[w + i], warp.id, epoch, release);
      lo = std::min(lo, w);
      hi = std::max(hi, w + kRowBytes / 4 - 1);
    }
    if (n > 0) {
      c.note_unfenced(lo);
      c.note_unfenced(hi);
    }
  } else {
    // Every row's words first (memform::quiet_reads: a line found plain answers for each row in
    // it, and a 16-byte row never leaves its 128-byte line), then the notes, a row's 4 bits in
    // one word of its warp's row (16-byte aligned: they never cross a 64-bit word).
    // lines_read_plain for each row's line, with the lines' table and the CTA's counts read once
    // (nothing in this loop writes shared memory: a line's answer holds for the whole warp), and
    // the lines found plain kept by line % 8 (an x4's rows lie in 8 neighbouring lines; a
    // lookup per row and the reloads were a third of this function's time on step 10).
    const Cta::PlainLine* const lines = memform::plain_lines(c);
    const uint64_t writes = c.plain_key();
    std::array<uint32_t, 8> plain{};
    plain.fill(~0u);
    for (uint32_t l = 0; l < n; ++l) {
      const uint32_t w = (r.addr[l] - timing::kSmemBaseAddress) / 4, line = w / 32;
      if (plain[line % 8] == line) continue;
      if (memform::line_read_plain(c, lines[line], line, writes, epoch)) {
        plain[line % 8] = line;
        continue;
      }
      if (c.any_tma_pending(w, w + kRowBytes / 4)) return false;
      for (uint32_t i = 0; i < kRowBytes / 4; ++i)
        if (!memform::word_is_quiet<false>(c, w + i, false, warp, rank, epoch)) return false;
    }
    const memform::ReadNotes notes = memform::read_notes(c);
    if (notes.release)
      for (uint32_t l = 0; l < n; ++l)
        for (uint32_t i = 0; i < kRowBytes / 4; ++i)
          c.smem_tensor_word[(r.addr[l] - timing::kSmemBaseAddress) / 4 + i].generic_read_release = release;
    if (notes.warps) {
      // A run of rows in one 64-bit word of the bits ORed in a register, then stored (an OR into
      // the row for each was a chain through memory).
      uint64_t* bits = memform::read_row(c, warp.id);
      uint32_t at = (r.addr[0] - timing::kSmemBaseAddress) / 256;
      uint64_t run = 0;
      for (uint32_t l = 0; l < n; ++l) {
        const uint32_t w = (r.addr[l] - timing::kSmemBaseAddress) / 4;
        if (w / 64 != at) {
          bits[at] |= run;
          at = w / 64;
          run = 0;
        }
        run |= uint64_t(0xF) << (w % 64);
      }
      bits[at] |= run;
    }
  }
  for (uint32_t l = 0; l < n; ++l) r.ptr[l] = c.smem.data() + (r.addr[l] - timing::kSmemBaseAddress);
  r.bank_mask = r.mask;
  return true;
}

bool resolve_rows(ExecContext& x, const ir::Operand& addr_op, bool store, Rows& r) {
  Cta& c = x.cta;
  r.num = x.inst.aux;
  if (r.num != 1 && r.num != 2 && r.num != 4) {
    report(c, HazardKind::unsupported, x.inst_id, x.warp.id, 0xFFFFFFFFu, 0,
           fmt::format("{} .x{}: the count must be 1, 2 or 4", x.inst.info().id, r.num));
    return false;
  }
  if (x.mask != 0xFFFFFFFFu)
    report(c, HazardKind::matrix_divergent, x.inst_id, x.warp.id, uint32_t(std::countr_zero(~x.mask)), 0,
           fmt::format("{} is .sync.aligned: all 32 lanes of the warp must execute it",
                       store ? "stmatrix" : "ldmatrix"));
  r.mask = r.num == 4 ? 0xFFFFFFFFu : (1u << (8 * r.num)) - 1;
  if (addr_op.kind == ir::OperandKind::mem_reg) check_register_read(x, addr_op.id, r.mask);
  if (addr_op.kind == ir::OperandKind::mem_reg) {
    const uint64_t* base = c.reg_lanes(x.warp.id, addr_op.id);
    if (store ? quiet_rows<true>(c, x.warp, base, addr_op.imm, r) : quiet_rows<false>(c, x.warp, base, addr_op.imm, r))
      return true;
  }
  bool ok = true;
  for (uint32_t l = 0; l < 8 * r.num; ++l) {
    r.addr[l] = memory_address32(x, addr_op, l);
    r.ptr[l] = smem_ptr(x, r.addr[l], kRowBytes, l, store);  // reports out-of-bounds and misaligned rows
    if (r.ptr[l]) {
      check_shared_words(x, r.addr[l], kRowBytes, l, store);
      if (r.addr[l] % kRowBytes == 0) r.bank_mask |= 1u << l;  // (a misaligned row faults on the GPU)
    } else {
      ok = false;
    }
  }
  return ok;
}

// The bank model sees the rows as one 16-byte access of the address-giving lanes (those whose
// row it can place).
void account_rows(ExecContext& x, const Rows& r, bool store) {
  ExecContext rows = x;
  rows.mask = r.bank_mask;
  account_shared(rows, r.addr, kRowBytes, store);
  x.latency = rows.latency;
}

#if defined(__x86_64__) && defined(__GNUC__)
// exec_ldmatrix's straight path (DecodedInst::direct, set by ldmatrix_direct_for) for an
// untraced whole warp's ldmatrix without .trans, whose rows are four lanes' words in order
// (MatrixPlaces::rows_in_order), where the address register is written in every lane that
// gives a row, no register of it can be a wgmma's, and quiet_rows finds every row inside shared
// memory, aligned and with nothing to report: what exec_ldmatrix does then (the rows' words
// noted as read, each row widened into its four lanes, the registers written, the rows'
// wavefronts charged as account_rows charges them), without an ExecContext. 0, having changed
// nothing, otherwise: exec_ldmatrix then runs.
__attribute__((target("avx2"))) uint32_t direct_ldmatrix(Cta& c, Warp& w, const DecodedInst& d) {
  Rows r;
  r.num = d.vec;
  r.mask = r.num == 4 ? kAllLanes : (1u << (8 * r.num)) - 1;
  if (!d.no_wgmma_regs || (w.written[d.src[0].reg] & r.mask) != r.mask ||
      !quiet_rows<false>(c, w, w.regs + 32 * size_t(d.src[0].reg), d.offset, r))
    return 0;
  for (uint32_t j = 0; j < r.num; ++j) {
    uint64_t* out = w.regs + 32 * size_t(d.data_regs[j]);
    for (uint32_t row = 0; row < 8; ++row)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4 * row),
                          _mm256_cvtepu32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r.ptr[8 * j + row]))));
    w.written[d.data_regs[j]] = kAllLanes;  // note_register_write: |= all lanes
  }
  const uint32_t inst = uint32_t(&d - c.program->insts.data());
  const layout::BankCount n =
      shared_wavefronts_by_inst(inst, r.addr, r.bank_mask, kRowBytes, layout::Phasing::by_width);
  return memform::shared_access_cost(c, w, memform::request_time(c, w, d, inst), n.wavefronts, n.ideal_wavefronts);
}
#endif

}  // namespace

DirectFn ldmatrix_direct_for(const ir::Inst& in, DecodedInst& d) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (in.op != ir::Op::ldmatrix || !cpu_has_avx2()) return nullptr;
  const ir::ldmatrix_operands ops = ir::ldmatrix_operands_of(in);
  const uint32_t num = in.aux;
  if ((num != 1 && num != 2 && num != 4) || ops.d.size() != num || ops.addr.kind != ir::OperandKind::mem_reg ||
      !matrix_places(num, in.op).rows_in_order)
    return nullptr;
  for (const ir::Operand& o : ops.d)
    if (o.kind != ir::OperandKind::reg) return nullptr;
  d.src[0] = DecodedSource{true, ops.addr.id, nullptr};
  d.offset = ops.addr.imm;
  d.vec = uint8_t(num);
  for (uint32_t j = 0; j < num; ++j) d.data_regs[j] = ops.d[j].id;
  return direct_ldmatrix;
#else
  (void)in, (void)d;
  return nullptr;
#endif
}

void exec_ldmatrix(ExecContext& x) {
  expect_op(x, "exec_ldmatrix", ir::Op::ldmatrix, ir::Op::ldmatrix_trans);
  const ir::ldmatrix_operands ops = ir::ldmatrix_operands_of(x.inst);
  Rows r;
  const bool ok = resolve_rows(x, ops.addr, false, r);
  if (r.num != 1 && r.num != 2 && r.num != 4) return;
  const MatrixPlaces& at = matrix_places(r.num, x.inst.op);
  for (uint32_t j = 0; j < r.num; ++j) {
    uint64_t* d = x.cta.reg_lanes(x.warp.id, ops.d[j].id);
    if (!ok) {  // a row outside shared memory (reported): zeros
      for (uint32_t l = 0; l < 32; ++l) d[l] = 0;
    } else if (at.rows_in_order) {  // row r of matrix j is lanes 4r..4r+3's words, in order
      for (uint32_t row = 0; row < 8; ++row) {
        uint32_t w[4];
        std::memcpy(w, r.ptr[8 * j + row], kRowBytes);
        for (uint32_t i = 0; i < 4; ++i) d[4 * row + i] = w[i];
      }
    } else {  // every row is there
      for (uint32_t l = 0; l < 32; ++l) {
        uint16_t v[2];
        for (uint32_t h = 0; h < 2; ++h) std::memcpy(&v[h], r.ptr[at.row[l][j][h]] + at.byte[l][j][h], 2);
        d[l] = uint32_t(v[0]) | uint32_t(v[1]) << 16;
      }
    }
    note_register_write(x, ops.d[j].id, 0xFFFFFFFFu);
  }
  account_rows(x, r, false);
}

void exec_stmatrix(ExecContext& x) {
  expect_op(x, "exec_stmatrix", ir::Op::stmatrix, ir::Op::stmatrix_trans);
  const ir::stmatrix_operands ops = ir::stmatrix_operands_of(x.inst);
  Sources src(x);  // checks the value registers
  Rows r;
  const bool ok = resolve_rows(x, ops.addr, true, r);
  if (r.num != 1 && r.num != 2 && r.num != 4) return;
  const MatrixPlaces& at = matrix_places(r.num, x.inst.op);
  if (ok)
    for (uint32_t j = 0; j < r.num; ++j)
      for (uint32_t l = 0; l < 32; ++l) {
        const uint32_t word = uint32_t(src.get(ops.values_at + j, l));
        for (uint32_t h = 0; h < 2; ++h) {
          const uint16_t v = uint16_t(word >> (16 * h));
          std::memcpy(r.ptr[at.row[l][j][h]] + at.byte[l][j][h], &v, 2);
        }
      }
  account_rows(x, r, true);
}

}  // namespace gs::model
