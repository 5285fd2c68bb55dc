// A value or a human-readable error, for the control plane (docs/CONTRIBUTING.md, rule 6).
// C++20 has no std::expected; this is the small subset benchgate needs.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace benchgate {

// An error a user can act on: one line that says where and what.
struct Error {
  std::string message;
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
  const std::string& message() const { return error().message; }

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
  const std::string& message() const { return error_.message; }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace benchgate
