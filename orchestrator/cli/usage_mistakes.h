// Command-line mistakes CLI11 would report confusingly, caught before it parses: an unknown
// command (`orchestrator rn x`) and an unknown option (`run --jsn x.json`, which CLI11 would
// read as an extra argument and then report the option's value as a missing scenario file);
// and the words for what CLI11 itself finds missing or out of range.
#pragma once

#include <optional>
#include <string>

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace benchgate::cli {

// The first mistake in argv as one line without "error: " ("unknown option '--jsn' for
// `orchestrator run` (did you mean '--json'?)"), or nothing. An option given to a command group
// before its command (`baseline --db x`) says the command is missing and lists them; one whose
// command comes later (`orchestrator --db x runs list`) says it goes after that command, the
// words rearranged (`orchestrator runs list --db x`). `help` where a command is expected
// (`orchestrator help runs list`) points to the --help of the command named after it. Everything
// after `--` is left to the command (worker-check runs it).
std::optional<std::string> command_line_mistake(const CLI::App& app, int argc,
                                                const char* const* argv);

// CLI11 2.1 reads a whole number with strtoll or strtoull and keeps what they clamp or wrap
// to (run 99999999999999999999 became run 9223372036854775807, --max-queued -1 became
// 18446744073709551615): a check on every whole-number option of `app` and its commands
// refuses such a value, and parse_error_message says so as it says a conversion error. Called
// once every command is added.
void refuse_out_of_range_numbers(CLI::App& app);

// What CLI11's `error` (thrown by app.parse) means, as one line without "error: ", naming the
// command it concerns and where its help is: a command group given no command lists its
// commands ("`orchestrator runs` needs a command: list, show, ..."), a missing argument is
// named with its description, and so is a value its type does not take ("`orchestrator compare`
// takes a whole number as its RUN_A argument, not 'abc': the old run").
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error);

}  // namespace benchgate::cli
