#include "engine/model/timing.hpp"

#include <algorithm>
#include <cmath>

namespace gs::model::timing {

uint32_t ctas_per_sm(uint32_t threads, uint32_t smem_bytes) {
  uint32_t n = kMaxCtasPerSm;
  if (threads > 0) n = std::min(n, kMaxThreadsPerSm / threads);
  n = std::min(n, kSmemPerSm / (smem_bytes + kReservedSmemPerCta));
  return std::max<uint32_t>(n, 1);
}

Prediction predict_gemm(const CtaCost& cta, uint64_t total_ctas, double flops, const Machine& m) {
  Prediction p;
  p.ctas_per_sm = ctas_per_sm(cta.threads, cta.smem_bytes);
  // Fewer CTAs than slots: each SM gets fewer co-resident CTAs.
  const uint64_t per_sm_needed = (total_ctas + m.sms - 1) / m.sms;
  const uint32_t resident = uint32_t(std::min<uint64_t>(p.ctas_per_sm, std::max<uint64_t>(per_sm_needed, 1)));
  p.waves = (total_ctas + uint64_t(m.sms) * resident - 1) / (uint64_t(m.sms) * resident);
  const double tensor = double(resident) * double(cta.tensor_busy_cycles);
  const double copy = double(resident) * double(cta.tma_bytes) / kTmaBytesPerCycle;
  p.cycles_per_wave = std::max({double(cta.cycles), tensor, copy});
  p.seconds = double(p.waves) * p.cycles_per_wave / m.clock_hz;
  p.tflops = p.seconds > 0 ? flops / p.seconds / 1e12 : 0.0;
  return p;
}

}  // namespace gs::model::timing
