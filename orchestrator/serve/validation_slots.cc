// See validation_slots.h.
#include "orchestrator/serve/validation_slots.h"

#include <malloc.h>

namespace benchgate::serve {

std::optional<ValidationSlots::Slot> ValidationSlots::acquire() {
  std::unique_lock lock(mutex_);
  if (!freed_.wait_for(lock, limits_.wait, [this] { return closed_ || in_use_ < limits_.max; }) ||
      closed_) {
    return std::nullopt;
  }
  ++in_use_;
  return Slot(*this);
}

void ValidationSlots::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  freed_.notify_all();
}

bool ValidationSlots::closed() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

void ValidationSlots::release() {
  // What the validation freed goes back to the system: glibc keeps it in the malloc arena of
  // the gRPC thread that validated, and with a scenario of 4 MiB (the bound before
  // kMaxSubmittedScenarioBytes) taking 170 MB while it was parsed, 8 threads' arenas held 800 MB
  // between them however few validated at once.
  ::malloc_trim(0);
  {
    std::lock_guard lock(mutex_);
    --in_use_;
  }
  freed_.notify_one();
}

}  // namespace benchgate::serve
