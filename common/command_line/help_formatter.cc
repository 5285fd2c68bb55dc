// See help_formatter.h.
#include "common/command_line/help_formatter.h"

#include <cctype>
#include <string_view>
#include <vector>

namespace benchgate::command_line {
namespace {

// CLI11 writes an option's type as its base type (TEXT, INT, UINT, FLOAT) followed by each
// check's description, all joined with ':' ("UINT:INT in [1 - 1024]", "TEXT:{asio,epoll}").
struct TypeText {
  std::string base;
  std::vector<std::string> checks;
};

TypeText split_type_text(const std::string& text) {
  TypeText out;
  const size_t colon = text.find(':');
  out.base = text.substr(0, colon);
  if (colon == std::string::npos) return out;
  // A set's members may hold ':' themselves: a set is taken whole, up to its closing brace.
  for (size_t at = colon + 1; at <= text.size();) {
    size_t end = text.find(':', at);
    if (text.compare(at, 1, "{") == 0) {
      const size_t close = text.find('}', at);
      end = close == std::string::npos ? std::string::npos : text.find(':', close);
    }
    if (end == std::string::npos) end = text.size();
    out.checks.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

std::string in_capitals(std::string_view name) {
  std::string out;
  for (const char c : name) {
    out += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

std::string value_name(const CLI::Option& option, const ValueNames& names) {
  for (const std::string& name : option.get_lnames()) {
    if (auto found = names.find("--" + name); found != names.end()) return found->second;
  }
  // A positional's name ("files", "RUN") already says what its value is.
  if (option.get_positional()) return "";
  const TypeText type = split_type_text(option.get_type_name());
  for (const std::string& check : type.checks) {
    if (check.starts_with("{")) return check;
  }
  for (const std::string& check : type.checks) {
    if (check == "FILE" || check == "DIR") return check;
    if (check.starts_with("PATH")) return "PATH";
  }
  if (type.base == "INT" || type.base == "UINT") return "N";
  if (type.base == "FLOAT" || type.base == "NUMBER") return "NUMBER";
  if (option.get_lnames().empty()) return "";
  return in_capitals(option.get_lnames().front());
}

std::string value_set(std::span<const std::string_view> values) {
  std::string out = "{";
  for (const std::string_view value : values) {
    if (out.size() > 1) out += ',';
    out += value;
  }
  return out + "}";
}

std::string range_in_words(const CLI::Option& option) {
  for (const std::string& check : split_type_text(option.get_type_name()).checks) {
    // CLI11's Range: "INT in [MIN - MAX]".
    const size_t open = check.find(" in [");
    const size_t dash = check.find(" - ", open);
    if (open == std::string::npos || dash == std::string::npos || !check.ends_with("]")) continue;
    const size_t min_at = open + 5;
    return check.substr(min_at, dash - min_at) + " to " +
           check.substr(dash + 3, check.size() - 1 - (dash + 3));
  }
  return "";
}

std::string HelpFormatter::make_option_opts(const CLI::Option* option) const {
  std::string opts = CLI::Formatter::make_option_opts(option);
  // The base formatter starts with " TYPE" where the option has a value and no text of its own.
  const std::string type = option->get_type_name();
  if (!option->get_option_text().empty() || option->get_type_size() == 0 || type.empty()) {
    return opts;
  }
  const std::string shown = " " + get_label(type);
  if (!opts.starts_with(shown)) return opts;
  const std::string name = value_name(*option, names_);
  return (name.empty() ? "" : " " + name) + opts.substr(shown.size());
}

std::string HelpFormatter::make_option_desc(const CLI::Option* option) const {
  std::string description = CLI::Formatter::make_option_desc(option);
  const std::string range = range_in_words(*option);
  if (range.empty() || description.find(range) != std::string::npos) return description;
  return description + (description.empty() ? "" : " ") + "(" + range + ")";
}

void use_readable_help(CLI::App& app, ValueNames names) {
  app.formatter(std::make_shared<HelpFormatter>(std::move(names)));
}

}  // namespace benchgate::command_line
