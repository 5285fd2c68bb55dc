// See usage_mistakes.h.
#include "orchestrator/cli/usage_mistakes.h"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "common/util/shown_text.h"
#include "orchestrator/scenario/suggest.h"

namespace benchgate::cli {
namespace {

// "orchestrator runs list": the words that select `app`.
std::string command_path(const CLI::App* app) {
  std::string path;
  for (; app != nullptr; app = app->get_parent()) {
    path = app->get_parent() == nullptr ? "orchestrator" + path : " " + app->get_name() + path;
  }
  return path;
}

// An option of `app` (or of a command above it, as CLI11 accepts the top level's --help and
// --version everywhere) named `name` ("--json", "-h").
const CLI::Option* find_option(const CLI::App* app, const std::string& name) {
  for (; app != nullptr; app = app->get_parent()) {
    for (const CLI::Option* option : app->get_options()) {
      if (!option->get_positional() && option->check_name(name)) return option;
    }
  }
  return nullptr;
}

std::vector<std::string> long_names(const CLI::App* app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app->get_options()) {
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

std::string suggestion(const std::string& word, const std::vector<std::string>& known) {
  std::vector<std::string_view> candidates(known.begin(), known.end());
  return scenario::did_you_mean(word, candidates);
}

bool looks_like_option(std::string_view arg) {
  // "-1" is a (negative) value, "-" alone is conventionally stdin.
  return arg.size() > 1 && arg[0] == '-' && !(arg[1] >= '0' && arg[1] <= '9') && arg[1] != '.';
}

// "add, remove, list": the commands of a command group.
std::string command_names(const CLI::App* app) {
  std::string names;
  for (const CLI::App* sub : app->get_subcommands({})) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  return names;
}

bool takes_positionals(const CLI::App* app) {
  for (const CLI::Option* option : app->get_options()) {
    if (option->get_positional()) return true;
  }
  return false;
}

// "the old run": an option's description as a phrase within a sentence.
std::string as_phrase(std::string description) {
  if (!description.empty() && description[0] >= 'A' && description[0] <= 'Z') {
    description[0] = static_cast<char>(description[0] - 'A' + 'a');
  }
  return description;
}

// "INT", "UINT", "FLOAT", "TEXT": the type CLI11 names for an option's value.
std::string type_word(const CLI::Option* option) {
  const std::string type = option->get_type_name();
  return type.substr(0, type.find(':'));
}

// "`orchestrator compare` takes a whole number as its RUN_A argument, not 'abc': the old run",
// with `why` after the value (" (too large)") where it helps.
std::string takes_sentence(const CLI::Option* option, const std::string& path,
                           const std::string& value, const std::string& why = "") {
  const std::string name = option->get_name();
  const std::string type = type_word(option);
  const std::string expected = type == "INT" || type == "UINT" ? "a whole number"
                               : type == "FLOAT"               ? "a number"
                                                               : "another value";
  const std::string where = option->get_positional() ? "its " + name + " argument" : name;
  const std::string description = as_phrase(option->get_description());
  return "`" + path + "` takes " + expected + " as " + where + ", not '" + shown_text(value) + "'" +
         (why.empty() ? "" : " (" + why + ")") + (description.empty() ? "" : ": " + description);
}

// CLI11's "Could not convert: RUN_A = abc" (a value its option's type does not take) as a
// sentence that says what the command takes there: "`orchestrator compare` takes a whole number
// as its RUN_A argument, not 'abc': the old run"; nothing for another conversion error.
std::optional<std::string> conversion_sentence(const CLI::App* app, const std::string& path,
                                               std::string_view what) {
  constexpr std::string_view kPrefix = "Could not convert: ";
  if (!what.starts_with(kPrefix)) return std::nullopt;
  what.remove_prefix(kPrefix.size());
  for (const CLI::Option* option : app->get_options()) {
    const std::string name = option->get_name();
    if (!what.starts_with(name + " = ")) continue;
    return takes_sentence(option, path, std::string(what.substr(name.size() + 3)));
  }
  return std::nullopt;
}

// What the range check below says, after the option's name (CLI11's ValidationError).
constexpr std::string_view kOutOfRange = "whole number out of range";

// Why a whole number does not fit an option's 64-bit type: "too large", "too small",
// "negative" (for an unsigned one, which strtoull would wrap); "" when it fits, or when it is
// not a number at all (CLI11's conversion refuses that).
std::string out_of_range(const std::string& value, bool is_unsigned) {
  const size_t first = value.find_first_not_of(" \t\n\v\f\r");
  if (first == std::string::npos) return "";
  char* end = nullptr;
  errno = 0;
  if (is_unsigned) {
    const unsigned long long parsed = std::strtoull(value.c_str(), &end, 0);
    if (end != value.c_str() + value.size()) return "";
    if (value[first] == '-' && parsed != 0) return "negative";
    return errno == ERANGE ? "too large" : "";
  }
  const long long parsed = std::strtoll(value.c_str(), &end, 0);
  if (end != value.c_str() + value.size() || errno != ERANGE) return "";
  return parsed > 0 ? "too large" : "too small";
}

// The range check's refusal as the sentence a conversion error gets: "`orchestrator runs show`
// takes a whole number as its RUN argument, not '99999999999999999999' (too large): run id".
std::optional<std::string> out_of_range_sentence(const CLI::App* app, const std::string& path,
                                                 std::string_view what) {
  for (const CLI::Option* option : app->get_options()) {
    if (what != option->get_name() + ": " + std::string(kOutOfRange)) continue;
    for (const std::string& value : option->results()) {
      const std::string why = out_of_range(value, type_word(option) == "UINT");
      if (!why.empty()) return takes_sentence(option, path, value, why);
    }
  }
  return std::nullopt;
}

// The command that the words argv[from..] select below `app` (the deepest one), and where its
// last word is; `app` itself and `from - 1` when none of them names one of its commands.
std::pair<const CLI::App*, int> command_named_after(const CLI::App* app, int argc,
                                                    const char* const* argv, int from) {
  int last = from - 1;
  for (int j = from; j < argc && std::string_view(argv[j]) != "--"; ++j) {
    for (const CLI::App* sub : app->get_subcommands({})) {
      if (sub->check_name(argv[j])) {
        app = sub;
        last = j;
        break;
      }
    }
  }
  return {app, last};
}

// `orchestrator --db x runs list`: an option given before the command it belongs to, which
// comes later. "`orchestrator` takes '--db' after the command: `orchestrator runs list --db x`
// (...)", the words rearranged; nothing when no later command has the option.
std::optional<std::string> option_before_its_command(const CLI::App* current, int argc,
                                                     const char* const* argv, int at) {
  const std::string arg = argv[at];
  const std::string name = arg.substr(0, arg.find('='));
  const bool inline_value = name.size() != arg.size();
  // The option read as its later command reads it: taking the next word as its value, or not.
  struct Reading {
    const CLI::App* command = nullptr;
    int last = 0;
    const CLI::Option* option = nullptr;
  };
  auto read_from = [&](int from, bool takes_value) -> std::optional<Reading> {
    auto [command, last] = command_named_after(current, argc, argv, from);
    const CLI::Option* option = command == current ? nullptr : find_option(command, name);
    if (option == nullptr || (!inline_value && (option->get_expected_min() > 0) != takes_value)) {
      return std::nullopt;
    }
    return Reading{command, last, option};
  };
  std::optional<Reading> reading =
      inline_value ? read_from(at + 1, false) : read_from(at + 2, true);
  if (!reading && !inline_value) reading = read_from(at + 1, false);
  if (!reading) return std::nullopt;
  const auto [command, last, option] = *reading;
  const int used = option->get_expected_min() > 0 && !inline_value ? 2 : 1;
  std::vector<std::string> moved;
  for (int j = at; j < at + used && j < argc; ++j) moved.push_back(shown_text(argv[j]));
  std::string example = "orchestrator";
  for (int j = 1; j < argc; ++j) {
    if (j >= at && j < at + used) continue;
    example += " " + shown_text(argv[j]);
    if (j == last) {
      for (const std::string& word : moved) example += " " + word;
    }
  }
  return "`" + command_path(current) + "` takes '" + name +
         "' after the command, not before it: `" + example +
         "` (each command takes its own options after its name; see `" + command_path(command) +
         " --help`)";
}

// `orchestrator help` or `orchestrator help runs list`: there is no such command, but what was
// asked for is the help of the command named after it.
std::string help_is_a_flag(const CLI::App* current, int argc, const char* const* argv, int at) {
  const CLI::App* command = command_named_after(current, argc, argv, at + 1).first;
  return "`" + command_path(current) + "` has no command 'help': for help, run `" +
         command_path(command) + " --help`" +
         (command == current
              ? " (and `" + command_path(current) + " COMMAND --help` for a command's)"
              : "");
}

}  // namespace

void refuse_out_of_range_numbers(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    const std::string type = type_word(option);
    if (type != "INT" && type != "UINT") continue;
    const bool is_unsigned = type == "UINT";
    // No description: the help's type names stay as they were.
    option->check(CLI::Validator(
        [is_unsigned](std::string& value) {
          return out_of_range(value, is_unsigned).empty() ? std::string()
                                                          : std::string(kOutOfRange);
        },
        ""));
  }
  for (CLI::App* sub : app.get_subcommands({})) refuse_out_of_range_numbers(*sub);
}

std::optional<std::string> command_line_mistake(const CLI::App& app, int argc,
                                                const char* const* argv) {
  const CLI::App* current = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (looks_like_option(arg)) {
      const std::string name = arg.substr(0, arg.find('='));
      const CLI::Option* option = find_option(current, name);
      if (option == nullptr && current->get_require_subcommand_min() > 0) {
        if (auto moved = option_before_its_command(current, argc, argv, i)) return moved;
        // `baseline --db x`: the options are its commands', and the command is what is missing.
        return "`" + command_path(current) + "` needs a command before '" + name +
               "': " + command_names(current) + "; see `" + command_path(current) + " --help`";
      }
      if (option == nullptr) {
        return "unknown option '" + name + "' for `" + command_path(current) + "`" +
               suggestion(name, long_names(current)) + "; see `" + command_path(current) +
               " --help`";
      }
      // Its value is the next word unless given as --name=value: skip it, whatever it holds.
      if (option->get_expected_min() > 0 && name.size() == arg.size()) ++i;
      continue;
    }
    std::vector<std::string> commands;
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : current->get_subcommands({})) {
      commands.push_back(sub->get_name());
      if (sub->check_name(arg)) next = sub;
    }
    if (next != nullptr) {
      current = next;
    } else if (!commands.empty() && !takes_positionals(current) && arg == "help") {
      return help_is_a_flag(current, argc, argv, i);
    } else if (!commands.empty() && !takes_positionals(current)) {
      return "unknown command '" + arg + "' for `" + command_path(current) + "`" +
             suggestion(arg, commands) + "; see `" + command_path(current) + " --help`";
    }
  }
  return std::nullopt;
}

std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error) {
  // The command the words selected: the deepest one parsed.
  const CLI::App* current = &app;
  for (auto parsed = current->get_subcommands(); !parsed.empty();
       parsed = current->get_subcommands()) {
    current = parsed.front();
  }
  const std::string path = command_path(current);
  const std::string help = "; see `" + path + " --help`";
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) {
    if (current->get_require_subcommand_min() > 0 && current->get_subcommands().empty()) {
      return "`" + path + "` needs a command: " + command_names(current) + help;
    }
    const std::string_view what = error.what();
    for (const CLI::Option* option : current->get_options()) {
      // The one CLI11 names ("files is required"), when it is a positional argument.
      if (option->get_positional() && option->get_required() && option->count() == 0 &&
          what.starts_with(option->get_name() + " ")) {
        // "needs its files argument: scenario files (TOML)": the description as a phrase.
        return "`" + path + "` needs its " + option->get_name() +
               " argument: " + as_phrase(option->get_description()) + help;
      }
    }
  }
  if (dynamic_cast<const CLI::ConversionError*>(&error) != nullptr) {
    if (auto sentence = conversion_sentence(current, path, error.what())) return *sentence + help;
  }
  if (dynamic_cast<const CLI::ValidationError*>(&error) != nullptr) {
    if (auto sentence = out_of_range_sentence(current, path, error.what())) return *sentence + help;
  }
  return "`" + path + "`: " + error.what() + help;
}

}  // namespace benchgate::cli
