// Help a user can read: each option's value is named for what it is (N, FILE, DURATION,
// HOST:PORT) and a range is said in words ("1 to 1024"), where CLI11 would print its own type
// names (`UINT:INT in [1 - 1024]`, `TEXT:FILE`). One formatter for every binary, so that a new
// option gets a readable help line without anything written for it.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>

namespace benchgate::command_line {

// The names of the values CLI11 knows only as text, by option name ("--db" -> "FILE").
using ValueNames = std::map<std::string, std::string, std::less<>>;

// What the value of `option` is called in its help line. In this order: its entry in `names`;
// nothing for a positional, its name being already one ("files", "RUN"); the set of values it
// takes ("{asio,epoll}"); FILE, DIR or PATH where CLI11 checks that; N for a whole number,
// NUMBER for another number; else its long name in capitals ("--commit" -> "COMMIT").
std::string value_name(const CLI::Option& option, const ValueNames& names);

// The value name of an option whose values a program checks itself, from the one list it checks
// against: {"asio", "epoll"} -> "{asio,epoll}", as CLI11's IsMember would be named.
std::string value_set(std::span<const std::string_view> values);

// "1 to 1024" when `option` is checked by a CLI11 Range, else "".
std::string range_in_words(const CLI::Option& option);

class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(ValueNames names) : names_(std::move(names)) {}

  // The option's left column, its value named by value_name().
  std::string make_option_opts(const CLI::Option* option) const override;
  // The option's description, ending with its range in words unless it says it already.
  std::string make_option_desc(const CLI::Option* option) const override;

 private:
  ValueNames names_;
};

// Gives `app` the HelpFormatter with `names`. Called before any subcommand is added: each copies
// its parent's formatter when it is made.
void use_readable_help(CLI::App& app, ValueNames names);

}  // namespace benchgate::command_line
