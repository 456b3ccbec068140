// `gemmscope sim`: run a kernel on the CPU model over the whole grid, trace one CTA, check
// the output against the reference GEMM, and report what the model saw.
#include <optional>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/cli.hpp"
#include "cli/progress.hpp"
#include "cli/values.hpp"
#include "engine/model/prediction_compare.hpp"
#include "run/output_file.hpp"
#include "run/prediction_report.hpp"
#include "run/sim_job.hpp"

namespace gs::cli {

void add_sim_command(CLI::App& app, Streams io, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "sim", "Run a kernel on the CPU model: the whole grid, one CTA traced, output checked against a reference");
  struct Opts {
    std::string id;
    uint32_t m = 0, n = 0, k = 0;
    std::vector<std::string> mistakes;
    std::vector<std::string> params;
    std::string inputs = "int";
    uint64_t seed = 1;
    std::string cta;
    std::string trace_file;
    bool json = false;
    bool traced_cta_only = false;
    uint32_t threads = 0;
    bool allow_long = false;
    std::string machine;
    std::string vs;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("ID", o->id, "Kernel id (see `gemmscope list`)")->required();
  add_shape_options(cmd, o->m, o->n, o->k);
  add_mistake_option(cmd, o->mistakes);
  add_param_option(cmd, o->params);
  cmd->add_option("--inputs", o->inputs,
                  "int: integers in [-4,4], checked exactly (default); random: uniform in [-1,1), checked to a "
                  "relative-error bound")
      ->check(one_of({"random", "int", "integer"}, "an input mode"));
  cmd->add_option("--seed", o->seed, "Seed of the input generator (default 1)")->check(seed_value());
  cmd->add_option("--cta", o->cta, "The CTA to trace, as X,Y (default 0,0)")->type_name("X,Y")->check(cta_value());
  cmd->add_option("--trace", o->trace_file, "Write the traced CTA's events as JSON to this file")
      ->type_name("FILE")
      ->check(non_empty("a file name"));
  cmd->add_flag("--json", o->json, "Print the report as one JSON object instead of a table");
  cmd->add_flag("--traced-cta-only", o->traced_cta_only,
                "Run only the traced CTA: fast at any shape, with the model's predicted TFLOP/s, but C is not judged");
  cmd->add_option("--threads", o->threads,
                  "Threads a whole-grid run uses (default: one per core); the result is the same for any count")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_option("--machine", o->machine,
                  fmt::format("The card the time is predicted on: {} (default: h100 for sm_80 and sm_90a kernels, b200 "
                              "for sm_100a)",
                              model::timing::machine_keys()))
      ->type_name("CARD");
  cmd->add_option("--vs", o->vs,
                  "Also run this kernel at the same shape on the same card (as it ships: --param and --mistake are "
                  "the first kernel's) and say why one is predicted faster, part by part")
      ->type_name("ID");
  cmd->add_flag("--allow-long", o->allow_long,
                fmt::format("Run a whole grid expected to take more than {} (without it such a run stops after a "
                            "few seconds and says how long it would take)",
                            format_duration(kLongRunSeconds)));
  cmd->footer(
      "Exit codes: 0 correct with no hazards (--traced-cta-only: no hazards), 1 wrong output, hazards or a hang, 2 bad "
      "usage.");

  cmd->callback([io, o, &exit_code] {
    // The trace's path is checked before the model runs (and never replaced by a failed run).
    run::OutputFile trace_out = o->trace_file.empty() ? run::OutputFile() : run::OutputFile(o->trace_file, "--trace");
    run::SimRequest req;
    req.kernel_id = o->id;
    req.shape = {o->m, o->n, o->k};
    req.mistakes = std::set<std::string>(o->mistakes.begin(), o->mistakes.end());
    req.params = parse_params(o->params);
    req.inputs = *run::parse_input_mode(o->inputs);  // the validator let only valid names through
    req.seed = o->seed;
    if (!o->cta.empty()) req.cta = parse_cta(o->cta);  // cta_value() let only valid text through
    req.trace = true;
    req.only_traced_cta = o->traced_cta_only;
    req.threads = o->threads;
    if (!o->machine.empty()) req.machine = machine_option(o->machine, o->id);

    // The kernel to compare with, and one card for both, checked before anything runs.
    if (!o->vs.empty()) {
      const kernels::KernelInfo& first = kernels::kernel_or_throw(o->id);
      const kernels::KernelInfo& other = kernels::kernel_or_throw(o->vs);
      const model::timing::Machine& card = req.machine ? *req.machine : model::timing::machine_for(first.arch);
      if (!model::timing::machine_runs(card, other.arch))
        throw kernels::ConfigError(fmt::format("--vs {}: it is built for {}, which does not run on {}, the card {} is "
                                               "predicted on; compare kernels that one card runs",
                                               o->vs, ir::arch_name(other.arch), card.name, o->id));
      req.machine = &card;
    }

    // One run with its progress and the long-run gate; nullopt when the gate stopped it.
    const auto run_one = [&](const run::SimRequest& r) -> std::optional<run::SimReport> {
      ProgressBar bar(io.err, is_terminal_stderr(io.err) ? ProgressBar::Style::bar : ProgressBar::Style::lines);
      LongRunGate gate(o->allow_long ? 0.0 : kLongRunSeconds, model::grid_threads(o->threads));
      run::SimRequest with_progress = r;
      with_progress.cancel = gate.stop_flag();
      with_progress.progress = [&bar, &gate](uint64_t done, uint64_t total) {
        bar.update(done, total);
        gate.update(done, total);
      };
      run::SimReport report = run::run_sim(with_progress);
      bar.finish();
      if (gate.stopped()) {
        io.err << fmt::format("gemmscope sim: {}: {}; run it with --allow-long to wait for it, or trace one CTA at "
                              "this shape with --traced-cta-only\n",
                              r.kernel_id, gate.reason());
        return std::nullopt;
      }
      return report;
    };
    const std::optional<run::SimReport> report = run_one(req);
    if (!report) {
      exit_code = kExitUsage;
      return;
    }

    if (!o->trace_file.empty()) {
      trace_out.write(run::trace_json(report->result.trace, report->kernel).dump() + "\n");
      io.err << fmt::format("wrote {} ({} events of CTA {})\n", o->trace_file, report->result.trace.events.size(),
                            run::format_cta(report->cta));
    }
    if (o->vs.empty()) {
      if (o->json)
        io.out << run::sim_report_json(*report).dump(2) << "\n";
      else
        io.out << run::sim_report_table(*report);
      exit_code = report->ok() ? kExitOk : kExitFailed;
      return;
    }

    run::SimRequest other = req;
    other.kernel_id = o->vs;
    other.mistakes.clear();
    other.params.clear();
    const std::optional<run::SimReport> other_report = run_one(other);
    if (!other_report) {
      exit_code = kExitUsage;
      return;
    }
    // A build of the kernel with its own parameters or mistakes is named by them ("hopper_producer_consumer
    // stages=6"), so that a variant against the kernel as it ships reads as two things.
    const auto name_of = [](const run::SimReport& r, const std::string& id) {
      const std::string params = kernels::non_default_params_text(kernels::kernel_or_throw(id), r.params);
      std::string name = params.empty() ? id : id + " " + params;
      for (const std::string& m : r.mistakes) name += " --break " + m;
      return name;
    };
    const std::string name_a = name_of(*report, o->id), name_b = name_of(*other_report, o->vs);
    const model::timing::PredictionComparison why =
        model::timing::compare_predictions(report->result.stats.prediction, name_a,
                                           other_report->result.stats.prediction, name_b);
    if (o->json) {
      nlohmann::json parts = nlohmann::json::object();
      for (const model::timing::PartTimes& p : why.parts) parts[p.name] = {{"a_seconds", p.a}, {"b_seconds", p.b}};
      io.out << nlohmann::json{{"a", run::sim_report_json(*report)},
                               {"b", run::sim_report_json(*other_report)},
                               {"comparison",
                                {{"speedup", why.speedup},
                                 {"bound_a", why.bound_a},
                                 {"bound_b", why.bound_b},
                                 {"parts", parts},
                                 {"lines", why.lines}}}}
                    .dump(2)
             << "\n";
    } else {
      io.out << run::sim_report_table(*report) << "\n" << run::sim_report_table(*other_report) << "\n";
      io.out << run::comparison_table(why, name_a, name_b, report->shape, *report->result.stats.predicted_on);
    }
    exit_code = report->ok() && other_report->ok() ? kExitOk : kExitFailed;
  });
}

}  // namespace gs::cli
