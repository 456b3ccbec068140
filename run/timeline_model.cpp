#include "run/timeline_model.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "engine/model/timeline_decode.hpp"
#include "run/gpu_bench.hpp"
#include "run/sim_job.hpp"

namespace gs::run {

TimelineDoc model_timeline(const std::string& kernel_id, kernels::GemmShape shape, const kernels::ParamValues& params,
                           const TimelineRequest& request) {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kernel_id);
  SimRequest req;
  req.kernel_id = info.id;
  req.shape = info.resolve(shape);
  req.params = params;
  req.cta = request.cta;
  req.inputs = InputMode::integer;
  req.only_traced_cta = request.ctas != TimelineCtas::wave;
  const ir::Kernel plain = kernels::build_kernel(info, {req.shape, {}, kernels::resolve_params(info, params)});
  req.timeline = timeline_options(plain, request);
  const SimReport r = run_sim(req);
  if (!r.result.completed)
    throw std::runtime_error(fmt::format("the model did not finish {} with the timeline: {}", info.id, r.result.error));
  TimelineDoc doc = timeline_doc(r.kernel, model::decode_timeline(r.kernel, *r.timeline, r.timeline_bytes), "model");
  const model::timing::Machine& machine = model::timing::machine_for(r.kernel.target);
  doc.kernel_id = info.id;
  doc.shape = r.shape;
  doc.device = fmt::format("model of {}", machine.article);
  doc.clock_ghz = machine.clock_hz / 1e9;
  doc.date = utc_timestamp_now();
  return doc;
}

}  // namespace gs::run
