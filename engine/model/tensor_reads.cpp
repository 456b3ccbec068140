// The tensor core's shared-memory reads of a wgmma, through its descriptors: which bytes it
// reads for each core matrix (8 rows x 16 B), and what the bank model makes of them.
//
// A warpgroup's m64nNk16 reads, per k16 slice, 64 rows of A and N rows of B, 32 bytes of K
// each (two 16-byte core-matrix columns). The model attributes to each warp of the warpgroup
// its quarter: A rows 16q..16q+15 and B rows q*N/4.. (q = warp % 4), and analyses them in
// batches of 32 sixteen-byte reads, in ldmatrix .x4 lane order (lane = 8g + r: core matrix g,
// row r; g = 0/1 rows 0-7/8-15 of K chunk 0, g = 2/3 the same rows of chunk 1). The counts
// go into SimStats (tensor_smem_*); the traced CTA also records the first batch of A and of B
// per wgmma (MmaOp::a_read, b_read), which the shared-memory view shows. Whether the real
// tensor core groups its reads this way is not known from public material: the batches are
// a reading of the descriptor's core-matrix layout (facts §1.4), and ncu's counters for
// wgmma kernels report 0 shared-memory bank conflicts for the ladder's swizzled tiles, as
// this model does.
#include "engine/layout/banks.hpp"
#include "engine/layout/wgmma_descriptor.hpp"
#include "engine/model/machine.hpp"

namespace gs::model {

namespace {

// One batch: rows [row0, row0 + rows) (rows <= 16), both K chunks; nullopt when the
// descriptor cannot be followed.
std::optional<SmemAccess> read_batch(const layout::WgmmaDescriptor& d, bool k_major, uint32_t row0, uint32_t rows) {
  std::array<uint32_t, 32> addr{};
  uint32_t mask = 0;
  try {
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const uint32_t g = lane / 8, row = 8 * (g % 2) + lane % 8, chunk = g / 2;
      if (row >= rows) continue;
      addr[lane] = layout::wgmma_descriptor_smem_address(d, row0 + row, 16 * chunk, k_major);
      mask |= 1u << lane;
    }
    const layout::BankReport r = layout::analyze_shared_access(addr, mask, 16);
    return smem_access_record(addr, mask, 16, false, r);
  } catch (const std::exception&) {  // an unplaceable descriptor: exec_wgmma reports it
    return std::nullopt;
  }
}

}  // namespace

void record_tensor_reads(Cta& c, uint32_t warp, MmaOp& op) {
  const uint32_t quarter = warp % 4;
  struct Operand {
    uint64_t bits;
    bool k_major;
    uint32_t row0, rows;
    uint32_t* record;
  };
  const Operand operands[2] = {{op.a_desc, op.a_k_major, 16 * quarter, 16, &op.a_read},
                               {op.b_desc, op.b_k_major, quarter * op.n / 4, op.n / 4, &op.b_read}};
  for (const Operand& o : operands) {
    const layout::WgmmaDescriptor d = layout::decode_wgmma_descriptor(o.bits);
    for (uint32_t done = 0; done < o.rows; done += 16) {
      const std::optional<SmemAccess> a = read_batch(d, o.k_major, o.row0 + done, std::min<uint32_t>(16, o.rows - done));
      if (!a) break;
      c.stats->tensor_smem_reads++;
      c.stats->tensor_smem_wavefronts += a->wavefronts;
      c.stats->tensor_smem_bank_conflicts += a->wavefronts - a->ideal_wavefronts;
      if (done == 0 && c.trace) *o.record = append(c.trace->smem, *a);
    }
  }
}

}  // namespace gs::model
