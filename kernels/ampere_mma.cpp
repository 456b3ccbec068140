#include "kernels/ampere_mma.hpp"

#include <fmt/format.h>

namespace gs::kernels::ampere {

using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;

std::vector<Reg> zero_accumulators(Builder& b, uint32_t mf, uint32_t nf) {
  std::vector<Reg> acc;
  for (uint32_t i = 0; i < mf * nf * 4; ++i) acc.push_back(b.mov(Type::f32, 0.0, fmt::format("acc{}", i)));
  return acc;
}

void mma_tiles(Builder& b, std::vector<Reg>& acc, const std::vector<std::vector<Reg>>& a,
               const std::vector<std::vector<Reg>>& bf) {
  const size_t nf = bf.size();
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < nf; ++j) {
      const std::vector<Reg> d(acc.begin() + ptrdiff_t(4 * (i * nf + j)), acc.begin() + ptrdiff_t(4 * (i * nf + j) + 4));
      b.mma_sync(d, a[i], bf[j], d);
    }
}

void store_accumulators(Builder& b, const std::vector<Reg>& acc, const Reg& c_lane, uint32_t mf, uint32_t nf,
                        uint32_t n) {
  for (uint32_t i = 0; i < mf; ++i)
    for (uint32_t j = 0; j < nf; ++j)
      for (uint32_t half = 0; half < 2; ++half) {  // rows g and g + 8
        const size_t r = 4 * (i * nf + j) + 2 * half;
        const int64_t off = (int64_t(16 * i + 8 * half) * n + 8 * j) * 4;
        b.st(ir::Op::st_global, Type::f32, Addr::at(c_lane, off), std::vector<Reg>{acc[r], acc[r + 1]});
      }
}

}  // namespace gs::kernels::ampere
