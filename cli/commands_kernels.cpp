// `gemmscope list` and `gemmscope ptx`: the registry and the emitted PTX.
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/cli.hpp"
#include "cli/values.hpp"
#include "engine/ptx/emit.hpp"
#include "kernels/registry.hpp"
#include "kernels/registry_json.hpp"
#include "run/output_file.hpp"

namespace gs::cli {

void add_list_command(CLI::App& app, Streams io, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("list", "List the kernels of the ladder");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print the registry as a JSON array");
  cmd->callback([io, json, &exit_code] {
    if (*json) {
      io.out << kernels::registry_json().dump(2) << "\n";
    } else {
      io.out << fmt::format("{:<4} {:<22} {:<8} {:<8} {:<12} {}\n", "step", "id", "arch", "family", "tile", "title");
      for (const kernels::KernelInfo& k : kernels::all_kernels()) {
        io.out << fmt::format("{:<4} {:<22} {:<8} {:<8} {:<12} {}\n", fmt::format("{:02}", k.step), k.id,
                              ir::arch_name(k.arch), kernels::family_name(k.family),
                              fmt::format("{}x{}x{}", k.tile.m, k.tile.n, k.tile.k), k.title);
        for (const kernels::BuildParam& p : k.params)
          io.out << fmt::format("{:<27} --param {}={} (default; takes {}): {}\n", "", p.name, p.default_value,
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
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("ID", o->id, "Kernel id (see `gemmscope list`)")->required();
  add_shape_options(cmd, o->m, o->n, o->k);
  add_param_option(cmd, o->params);
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
    const ir::Kernel kernel = kernels::build_kernel(info, cfg);
    const ptx::PtxModule module = ptx::emit(kernel);
    if (o->output.empty()) {
      io.out << module.text;
    } else {
      out.write(module.text);
      io.err << fmt::format("wrote {} ({} lines, {} bytes, PTX {} for {})\n", o->output, module.line_to_inst.size(),
                            module.text.size(), ptx::ptx_version_string(module.ptx_version), ir::arch_name(kernel.target));
    }
    exit_code = kExitOk;
  });
}

}  // namespace gs::cli
