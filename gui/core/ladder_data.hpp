// The ladder view's prepared data: the kernels of the registry, the request being edited
// (shape, inputs, traced CTA, mistakes) checked against the kernel's own rules, and a summary
// of the loaded kernel's run (verdict, instructions, cycles, predicted TFLOP/s).
//
// The request lives in AppState::request; the ladder edits it in place and hands it to
// request_open / request_model_run. Checking a request builds the kernel's IR (for its launch
// grid), so RequestChecker caches the answer for an unchanged request.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "gui/core/session.hpp"

namespace gs::gui {

struct AppState;

// What a request would do if opened now. Error strings are empty when that part is fine; they
// carry the kernel's own ConfigError message ("M=100 is not a multiple of ...").
struct RequestCheck {
  std::string shape_error;
  std::string cta_error;
  std::string mistake_error;
  std::string param_error;
  std::array<uint32_t, 3> grid{0, 0, 0};  // the launch grid at this shape (0s when invalid)
  uint32_t threads = 0;                   // threads per CTA
  bool ok() const { return shape_error.empty() && cta_error.empty() && mistake_error.empty() && param_error.empty(); }
};

// The shape with 0 dimensions replaced by the kernel's example shape (as open_kernel does).
kernels::GemmShape resolved_shape(const kernels::KernelInfo& info, kernels::GemmShape shape);
// The kernel's check_shape verdict for the build with these parameters (its tile may be one):
// empty when the shape fits, else its message.
std::string shape_error(const kernels::KernelInfo& info, kernels::GemmShape shape,
                        const kernels::ParamValues& params = {});
// Checks shape, mistake names and the traced CTA against the launch grid. Never throws.
RequestCheck check_request(const run::SimRequest& request);

// check_request, remembered for the last request (the ladder asks every frame).
class RequestChecker {
 public:
  const RequestCheck& get(const run::SimRequest& request);

 private:
  std::optional<run::SimRequest> last_;
  RequestCheck check_;
};

// The ladder view's own choices, kept in AppState so describe_ladder() reports them.
struct LadderViewOptions {
  int gpu_repeats = 3;  // benchmark rounds of "Run on GPU", 1..20
};

// Picks a kernel on the ladder: the request switches to it at its example shape with no
// mistakes and default parameters; inputs, seed and CTA (0,0) are reset too since the old CTA may not exist.
void select_ladder_kernel(AppState& app, const std::string& kernel_id);
// Switches one mistake of the edited request on or off.
void set_mistake(AppState& app, const std::string& name, bool on);
// Sets one build parameter of the edited request; its default's value clears it (so the
// request says only what differs from the kernel as it ships).
void set_param(AppState& app, const kernels::BuildParam& param, uint32_t value);
// The request "Open (trace one CTA)" sends: the edited one, only the traced CTA.
run::SimRequest trace_request(const AppState& app);

enum class Verdict : uint8_t { correct, wrong, not_judged };
const char* verdict_name(Verdict v);

// What the loaded kernel's run showed.
struct RunSummary {
  std::string kernel_id;
  kernels::GemmShape shape;
  Verdict verdict = Verdict::not_judged;
  bool completed = true;
  uint64_t mismatches = 0, elements = 0;
  uint64_t warp_instructions = 0;  // whole run (grid or traced CTA)
  // What warp_instructions counts: "" (the whole grid), "traced CTA", or for a fast-forwarded
  // CTA "traced CTA, passes that ran only: ..." (issue slots are not
  // extrapolated over skipped passes, model/fast_forward.cpp).
  std::string warp_instructions_scope;
  uint64_t traced_cycles = 0;      // modeled cycles of the traced CTA
  double predicted_tflops = 0.0;
  std::string predicted_on;        // "an H100", "a B200 (NVIDIA's figures, unconfirmed)"
  double open_seconds = 0.0;
  size_t hazards = 0;
  bool whole_grid = false;
};
RunSummary run_summary(const LoadedKernel& k);

}  // namespace gs::gui
