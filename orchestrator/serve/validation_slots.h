// How many scenarios `orchestrator serve` validates at once. A Submit validates its scenario on
// the gRPC thread that received it, and the largest file a client may send (1 MiB,
// kMaxSubmittedScenarioBytes: 350,000 inline tables) takes up to half a second and 42 MB while
// it is parsed; at 4 MiB, the bound before, a second and 170 MB, and 8 clients sending one at
// once took the service from 45 MB to 1.24 GB. Past the bound a Submit waits for a slot, a
// little, and is then refused (RESOURCE_EXHAUSTED: the client can send it again). A slot given
// back gives the memory its validation freed back to the system too (validation_slots.cc).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>

namespace benchgate::serve {

// The validations serve runs at once, and how long a Submit waits for one to end.
inline constexpr size_t kMaxValidations = 2;
inline constexpr std::chrono::milliseconds kValidationWait = std::chrono::seconds(5);

class ValidationSlots {
 public:
  // One validation's slot, given back when it goes out of scope.
  class Slot {
   public:
    Slot(Slot&& other) noexcept : slots_(other.slots_) { other.slots_ = nullptr; }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    Slot& operator=(Slot&&) = delete;
    ~Slot() {
      if (slots_ != nullptr) slots_->release();
    }

   private:
    friend class ValidationSlots;
    explicit Slot(ValidationSlots& slots) : slots_(&slots) {}
    ValidationSlots* slots_;
  };

  struct Limits {
    size_t max = kMaxValidations;                      // slots
    std::chrono::milliseconds wait = kValidationWait;  // for one to be given back
  };

  explicit ValidationSlots(Limits limits) : limits_(limits) {}

  // A slot, waiting up to the limits' `wait` for one to be given back; nothing when none was
  // in time, or when the slots are closed (before or during the wait).
  std::optional<Slot> acquire();
  // The service stops: every wait ends without a slot, and no slot is handed out again. The
  // validations that hold one run to their end (a second or so: see above).
  void close();
  bool closed() const;
  size_t max() const { return limits_.max; }

 private:
  void release();

  const Limits limits_;
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  size_t in_use_ = 0;
  bool closed_ = false;
};

}  // namespace benchgate::serve
