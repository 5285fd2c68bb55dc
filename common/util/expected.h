// A value or a human-readable error, for the control plane (docs/CONTRIBUTING.md, rule 6).
// C++20 has no std::expected; this is the small subset benchgate needs.
#pragma once

#include <cassert>
#include <memory>
#include <string>
#include <utility>
#include <variant>

namespace benchgate {

// What kind of failure an error is, for the code that decides what to do about it (which
// never looks at the message's text).
enum class ErrorKind {
  kFailed,         // something did not work: the default
  kInterrupted,    // Ctrl-C, SIGTERM or a cancelled `serve` job ended the wait: nobody's fault
  kNotConfigured,  // a program the work needs is not installed: no number, and no failure
  kInvalidInput,   // the request is the user's to fix: an unknown run, a malformed name
};

// An error a user can act on: one line that says where and what (`message`), what it was
// caused by (`cause`, whose text follows the message after ": "), and what a failed child
// process wrote last (`detail`, its stderr tail), which follows the one line on lines of its
// own. Code decides on `kind`; people read text().
struct Error {
  Error() = default;
  Error(std::string message_, ErrorKind kind_ = ErrorKind::kFailed,  // NOLINT: Error{"..."}
        std::string detail_ = {})
      : message(std::move(message_)), kind(kind_), detail(std::move(detail_)) {}

  std::string message;
  ErrorKind kind = ErrorKind::kFailed;
  std::string detail;                  // a child's stderr tail; empty when there is none
  std::shared_ptr<const Error> cause;  // the error this one explains in its own words

  // "`what`: `cause`", keeping the cause's kind (a start ended by an interrupt is still an
  // interrupt).
  static Error caused(std::string what, Error cause) {
    Error out{std::move(what), cause.kind};
    out.cause = std::make_shared<const Error>(std::move(cause));
    return out;
  }

  // The one line: this message and its causes, without any stderr tail.
  std::string headline() const { return cause ? message + ": " + cause->headline() : message; }
  // Everything: the headline, then the stderr tail of whichever error in the chain has one.
  std::string text() const {
    std::string out = cause ? message + ": " + cause->text() : message;
    if (!detail.empty()) out += "; its stderr ends with:\n" + detail;
    return out;
  }
};

template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Expected(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }
  // What a user reads: Error::text().
  std::string message() const { return error().text(); }

 private:
  std::variant<T, Error> v_;
};

// For operations that return nothing on success.
template <>
class Expected<void> {
 public:
  Expected() = default;
  Expected(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }
  std::string message() const { return error_.text(); }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace benchgate
