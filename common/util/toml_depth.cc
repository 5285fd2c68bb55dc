// See toml_depth.h.
#include "common/util/toml_depth.h"

#include <vector>

#include "common/util/shown_text.h"

namespace benchgate {
namespace {

// How many parts of a key its message quotes.
constexpr size_t kShownParts = 3;

bool is_bare_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  std::optional<TomlDepthProblem> scan() {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;
    while (i_ < text_.size() && !problem_) line();
    return std::move(problem_);
  }

 private:
  // An inline table (its keys' values lie one part deeper than `depth`) or an array (its
  // elements lie at `depth`).
  struct Frame {
    bool array = false;
    size_t depth = 0;
  };

  char at(size_t i) const { return i < text_.size() ? text_[i] : '\0'; }
  bool starts(std::string_view s) const { return text_.substr(i_, s.size()) == s; }

  void skip_blanks() {
    while (at(i_) == ' ' || at(i_) == '\t') ++i_;
  }
  void skip_line() {
    while (i_ < text_.size() && text_[i_] != '\n') ++i_;
    if (i_ < text_.size()) ++i_;
  }
  // Blanks, line breaks and comments (between the elements of an array).
  void skip_space() {
    for (;;) {
      skip_blanks();
      if (at(i_) == '\n' || at(i_) == '\r') {
        ++i_;
      } else if (at(i_) == '#') {
        while (i_ < text_.size() && text_[i_] != '\n') ++i_;
      } else {
        return;
      }
    }
  }

  // A string starting at i_ (a quote), to past its end; an unclosed one ends at its line's end
  // (a multi-line one at the text's end), where toml++ will report it.
  void skip_string() {
    const char quote = text_[i_];
    const bool escapes = quote == '"';
    if (starts(std::string(3, quote))) {
      const std::string end(3, quote);
      i_ += 3;
      while (i_ < text_.size()) {
        if (escapes && text_[i_] == '\\') {
          i_ += 2;
        } else if (starts(end)) {
          i_ += 3;
          // """a"""" ends with a quote of its own: up to two more belong to the string.
          for (int extra = 0; extra < 2 && at(i_) == quote; ++extra) ++i_;
          return;
        } else {
          ++i_;
        }
      }
      i_ = text_.size();
      return;
    }
    ++i_;
    while (i_ < text_.size() && text_[i_] != '\n') {
      if (escapes && text_[i_] == '\\' && at(i_ + 1) != '\n') {
        i_ += 2;
      } else if (text_[i_] == quote) {
        ++i_;
        return;
      } else {
        ++i_;
      }
    }
    if (i_ > text_.size()) i_ = text_.size();
  }

  // A key at i_ (`a`, `a.b`, `"a.b".'c'`): its number of parts (0 where there is no key), and
  // i_ past it. A key of too many parts is refused here.
  size_t key() {
    skip_blanks();
    const size_t begin = i_;
    size_t shown_end = begin;
    size_t parts = 0;
    for (;;) {
      skip_blanks();
      const char c = at(i_);
      if (c == '"' || c == '\'') {
        skip_string();
      } else if (is_bare_key_char(c)) {
        while (is_bare_key_char(at(i_))) ++i_;
      } else {
        break;
      }
      if (++parts <= kShownParts) shown_end = i_;
      skip_blanks();
      if (at(i_) != '.') break;
      ++i_;
    }
    if (parts > kMaxTomlKeyParts) {
      fail(begin, "a key has " + std::to_string(parts) + " dotted parts ('" +
                      shown_text(text_.substr(begin, shown_end - begin)) + "...'); at most " +
                      std::to_string(kMaxTomlKeyParts) + " are accepted");
    }
    key_begin_ = begin;
    key_shown_ = text_.substr(begin, shown_end - begin);
    key_more_ = parts > kShownParts;
    return parts;
  }

  // One line of the top level: a table header, a key and its value, a comment or nothing.
  void line() {
    skip_blanks();
    const char c = at(i_);
    if (c == '[') {
      ++i_;
      if (at(i_) == '[') ++i_;
      header_parts_ = key();
      skip_line();
      return;
    }
    if (is_bare_key_char(c) || c == '"' || c == '\'') {
      const size_t parts = key();
      if (problem_) return;
      skip_blanks();
      if (parts == 0 || at(i_) != '=') {
        skip_line();
        return;
      }
      ++i_;
      value_of_key(header_parts_ + parts);
      if (!problem_) skip_line();
      return;
    }
    skip_line();
  }

  // The value of a key nested `depth` deep, and everything nested in it.
  void value_of_key(size_t depth) {
    if (depth > kMaxTomlDepth) {
      deep(key_begin_, depth);
      return;
    }
    std::vector<Frame> frames;
    // Whether the next thing is a value (else a key of the inline table on top, or its end).
    bool want_value = true;
    size_t value_depth = depth;
    while (!problem_ && i_ < text_.size()) {
      if (want_value) {
        if (frames.empty() || !frames.back().array) {
          skip_blanks();
        } else {
          skip_space();
          if (at(i_) == ']') {  // [] or a trailing comma
            ++i_;
            frames.pop_back();
            if (!after_value(frames, want_value, value_depth)) return;
            continue;
          }
        }
        const char c = at(i_);
        if (c == '"' || c == '\'') {
          skip_string();
        } else if (c == '[' || c == '{') {
          const bool array = c == '[';
          const size_t inner = array ? value_depth + 1 : value_depth;
          if (array && inner > kMaxTomlDepth) {
            deep(i_, inner);
            return;
          }
          ++i_;
          frames.push_back(Frame{array, inner});
          if (array) {
            value_depth = inner;
          } else {
            want_value = false;
          }
          continue;
        } else {
          // A number, a date and time, a boolean: to the next delimiter.
          while (i_ < text_.size() &&
                 std::string_view(",]}#\n\r").find(text_[i_]) == std::string_view::npos) {
            ++i_;
          }
        }
        if (!after_value(frames, want_value, value_depth)) return;
        continue;
      }
      // A key of the inline table on top, or its end.
      skip_space();
      if (at(i_) == '}') {
        ++i_;
        frames.pop_back();
        if (!after_value(frames, want_value, value_depth)) return;
        continue;
      }
      const size_t parts = key();
      if (problem_) return;
      skip_blanks();
      if (parts == 0 || at(i_) != '=') return;  // not TOML: toml++ says where
      ++i_;
      value_depth = frames.back().depth + parts;
      if (value_depth > kMaxTomlDepth) {
        deep(key_begin_, value_depth);
        return;
      }
      want_value = true;
    }
  }

  // Past a value inside `frames`: a comma (the next element or key), or the end of the array or
  // inline table on top. False where the top-level value is complete, or the text is not TOML.
  bool after_value(std::vector<Frame>& frames, bool& want_value, size_t& value_depth) {
    while (!frames.empty()) {
      skip_space();
      const Frame& top = frames.back();
      if (at(i_) == ',') {
        ++i_;
        want_value = top.array;
        value_depth = top.depth;
        return true;
      }
      if (at(i_) != (top.array ? ']' : '}')) return false;
      ++i_;
      frames.pop_back();
    }
    return false;
  }

  void deep(size_t begin, size_t depth) {
    std::string what = "an array";
    if (begin == key_begin_) {
      what = "key '" + shown_text(key_shown_) + (key_more_ ? "...'" : "'");
    }
    fail(begin, what + " is nested " + std::to_string(depth) +
                    " deep (counting the dotted parts of its table header and keys and the "
                    "arrays and inline tables around it); at most " +
                    std::to_string(kMaxTomlDepth) + " are accepted");
  }

  void fail(size_t offset, std::string message) {
    TomlDepthProblem p;
    p.line = 1;
    size_t line_start = 0;
    for (size_t j = 0; j < offset && j < text_.size(); ++j) {
      if (text_[j] == '\n') {
        ++p.line;
        line_start = j + 1;
      }
    }
    p.column = 1;
    for (size_t j = line_start; j < offset && j < text_.size(); ++j) {
      if ((static_cast<unsigned char>(text_[j]) & 0xC0) != 0x80) ++p.column;
    }
    p.message = std::move(message);
    problem_ = std::move(p);
  }

  std::string_view text_;
  size_t i_ = 0;
  size_t header_parts_ = 0;
  size_t key_begin_ = 0;
  std::string_view key_shown_;
  bool key_more_ = false;
  std::optional<TomlDepthProblem> problem_;
};

}  // namespace

std::optional<TomlDepthProblem> toml_depth_problem(std::string_view text) {
  return Scanner(text).scan();
}

}  // namespace benchgate
