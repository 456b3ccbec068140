#include "kernels/registry_json.hpp"

namespace gs::kernels {

nlohmann::json shape_json(const GemmShape& s) { return {{"m", s.m}, {"n", s.n}, {"k", s.k}}; }

nlohmann::json kernel_info_json(const KernelInfo& k) {
  nlohmann::json mistakes = nlohmann::json::array();
  for (const Mistake& m : k.mistakes)
    mistakes.push_back({{"name", m.name}, {"description", m.description}, {"symptom", m.symptom}});
  // The stops its lesson steps through: each kind's name and sentence (kernels/stops.def), and
  // the mistake that makes it happen when only one does.
  nlohmann::json stops = nlohmann::json::array();
  for (const StepStop& s : k.stops) {
    const StopKindInfo& kind = stop_kind_info(s.kind);
    stops.push_back({{"name", std::string(kind.name)},
                     {"label", std::string(kind.label)},
                     {"sentence", std::string(kind.sentence)},
                     {"mistake", s.mistake}});
  }
  nlohmann::json params = nlohmann::json::array();
  for (const BuildParam& p : k.params)
    params.push_back({{"name", p.name}, {"description", p.description}, {"default", p.default_value}, {"choices", p.choices}});
  return {
      {"id", k.id},
      {"title", k.title},
      {"arch", ir::arch_name(k.arch)},
      {"family", family_name(k.family)},
      {"step", k.step},
      {"delta", k.delta},
      {"explanation", k.explanation},
      {"focus_views", k.focus_views},
      {"stops", stops},
      {"pictures", k.pictures},
      {"tile", shape_json(k.tile)},
      {"example_shape", shape_json(k.example_shape)},
      {"dtypes", {{"a", dtype_name(k.ab_dtype)}, {"b", dtype_name(k.ab_dtype)}, {"c", dtype_name(k.c_dtype)}}},
      {"b_layout", b_layout_name(k.b_layout)},
      {"constraints", k.constraints},
      {"mistakes", mistakes},
      {"params", params},
  };
}

nlohmann::json registry_json() {
  nlohmann::json all = nlohmann::json::array();
  for (const KernelInfo& k : all_kernels()) all.push_back(kernel_info_json(k));
  return all;
}

}  // namespace gs::kernels
