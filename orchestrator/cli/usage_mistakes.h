// Command-line mistakes CLI11 would report confusingly, caught before it parses: an unknown
// command (`orchestrator rn x`) and an unknown option (`run --jsn x.json`, which CLI11 would
// read as an extra argument and then report the option's value as a missing scenario file).
#pragma once

#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace benchgate::cli {

// The first mistake in argv as one line without "error: " ("unknown option '--jsn' for
// `orchestrator run` (did you mean '--json'?)"), or nothing. Everything after `--` is left to
// the command (worker-check runs it).
std::optional<std::string> command_line_mistake(const CLI::App& app, int argc,
                                                const char* const* argv);

}  // namespace benchgate::cli
