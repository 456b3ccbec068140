// `gemmscope list`, `gemmscope ptx` and `gemmscope diff`: the registry, the emitted PTX (with the
// kernel source interleaved) and what changed between two kernels or with a mistake.
#include <algorithm>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/cli.hpp"
#include "cli/values.hpp"
#include "engine/ir/instrument.hpp"
#include "engine/ptx/emit.hpp"
#include "kernels/registry.hpp"
#include "kernels/registry_json.hpp"
#include "run/kernel_diff.hpp"
#include "run/output_file.hpp"
#include "run/ptx_annotate.hpp"

namespace gs::cli {

void add_list_command(CLI::App& app, Streams io, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("list", "List the kernels of the ladder");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print the registry as a JSON array");
  cmd->callback([io, json, &exit_code] {
    if (*json) {
      io.out << kernels::registry_json().dump(2) << "\n";
    } else {
      // The id column as wide as the longest id, so every row's columns line up.
      size_t id_w = 2;
      for (const kernels::KernelInfo& k : kernels::all_kernels()) id_w = std::max(id_w, k.id.size());
      const auto row = [&](std::string_view step, std::string_view id, std::string_view arch, std::string_view family,
                           std::string_view tile, std::string_view title) {
        io.out << fmt::format("{:<4} {:<{}} {:<8} {:<9} {:<12} {}\n", step, id, id_w, arch, family, tile, title);
      };
      row("step", "id", "arch", "family", "tile", "title");
      for (const kernels::KernelInfo& k : kernels::all_kernels()) {
        row(fmt::format("{:02}", k.step), k.id, ir::arch_name(k.arch), kernels::family_name(k.family),
            fmt::format("{}x{}x{}", k.tile.m, k.tile.n, k.tile.k), k.title);
        for (const kernels::BuildParam& p : k.params)
          io.out << fmt::format("{:<{}} --param {}={} (default; takes {}): {}\n", "", id_w + 5, p.name, p.default_value,
                                fmt::join(p.choices, ", "), p.description);
      }
    }
    exit_code = kExitOk;
  });
}

void add_ptx_command(CLI::App& app, Streams io, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("ptx", "Print a kernel's PTX for a problem shape");
  struct Opts {
    std::string id;
    uint32_t m = 0, n = 0, k = 0;
    std::vector<std::string> params;
    std::string output;
    bool annotate = false;
    bool timeline = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("ID", o->id, "Kernel id (see `gemmscope list`)")->required();
  add_shape_options(cmd, o->m, o->n, o->k);
  add_param_option(cmd, o->params);
  cmd->add_flag("--timeline", o->timeline,
                "The kernel instrumented by the timeline pass, as `bench --timeline` runs it (CTA 0 records; each "
                "recording instruction carries a `timeline: ...` comment)");
  cmd->add_flag("--annotate", o->annotate,
                "Interleave the kernel's C++ source: before each instruction, the line that recorded it "
                "(as `//> file:line  code`)");
  cmd->add_option("-o,--output", o->output, "Write the PTX to this file instead of standard output")
      ->type_name("FILE")
      ->check(non_empty("a file name"));
  cmd->callback([io, o, &exit_code] {
    // The output path is checked before the work (and never replaced by a failed run).
    run::OutputFile out = o->output.empty() ? run::OutputFile() : run::OutputFile(o->output, "-o");
    const kernels::KernelInfo& info = kernels::kernel_or_throw(o->id);
    kernels::GemmConfig cfg;
    cfg.shape = info.resolve({o->m, o->n, o->k});
    cfg.params = parse_params(o->params);
    ir::Kernel kernel = kernels::build_kernel(info, cfg);
    if (o->timeline) kernel = ir::instrument_timeline(kernel, {}).kernel;
    const ptx::PtxModule module = ptx::emit(kernel);
    const std::string text = o->annotate ? run::annotate_ptx(kernel, module) : module.text;
    if (o->output.empty()) {
      io.out << text;
    } else {
      out.write(text);
      io.err << fmt::format("wrote {} ({} lines of PTX, {} bytes, PTX {} for {})\n", o->output,
                            module.line_to_inst.size(), text.size(), ptx::ptx_version_string(module.ptx_version),
                            ir::arch_name(kernel.target));
    }
    exit_code = kExitOk;
  });
}

void add_diff_command(CLI::App& app, Streams io, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "diff", "What changed: a kernel's source and PTX against the step before it, another kernel, or a mistake");
  struct Opts {
    std::string id, against, mistake;
    uint32_t m = 0, n = 0, k = 0;
    bool ptx_only = false, source_only = false;
    int context = 3;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("A", o->id, "Kernel id (see `gemmscope list`)")->required();
  cmd->add_option("B", o->against, "Compare A (left) with B (right); without B: the step before A (left) with A");
  cmd->add_option("--mistake,--break", o->mistake, "Compare A as written (left) with A with this mistake (right)")
      ->type_name("NAME")
      ->check(non_empty("a mistake name"));
  add_shape_options(cmd, o->m, o->n, o->k);
  auto* only_ptx = cmd->add_flag("--ptx", o->ptx_only, "Only the PTX diff");
  cmd->add_flag("--source", o->source_only, "Only the source diff")->excludes(only_ptx);
  cmd->add_option("--context", o->context, "Unchanged lines shown around each change (-1: all)")
      ->check(CLI::Range(-1, 100000));
  cmd->callback([io, o, &exit_code] {
    run::KernelDiffRequest req;
    req.shape = {o->m, o->n, o->k};
    if (o->mistake.empty()) {
      // `diff A B` reads left to right; `diff A` shows A against the step before it.
      req.id = o->against.empty() ? o->id : o->against;
      req.against = o->against.empty() ? std::string() : o->id;
    } else {
      req.id = o->id;
      req.against = o->against;
      req.mistake = o->mistake;
    }
    const run::KernelDiff d = run::diff_kernels(req);
    io.out << fmt::format("{} -> {}: {}\n", d.left_name, d.right_name, d.summary);
    if (!o->ptx_only) io.out << "\n" << run::format_text_diff(d.source, o->context);
    if (!o->source_only) {
      io.out << "\n(PTX lines compared with register and label numbers renamed in order of appearance)\n";
      io.out << run::format_text_diff(d.ptx, o->context);
    }
    exit_code = kExitOk;
  });
}

}  // namespace gs::cli
