// model_fixture.hpp's reference, out of the header: run/'s namespace stays out of the test files
// that include it (several define a `run(...)` of their own).
#include "tests/model/model_fixture.hpp"

#include "run/gemm_data.hpp"

namespace gs::test {

std::vector<double> reference_in_double(kernels::GemmShape shape, bool integer, std::vector<float> a,
                                        std::vector<float> b) {
  run::GemmData data;
  data.shape = shape;
  data.inputs = integer ? run::InputMode::integer : run::InputMode::random;  // integers: summed exactly in float
  data.a_values = std::move(a);
  data.b_values = std::move(b);
  return run::reference_gemm(data);
}

}  // namespace gs::test
