// Exit codes of `orchestrator run`, `validate` and `gate` (docs/GATES.md; README "Failure
// behaviour").
#pragma once

namespace benchgate::cli {

inline constexpr int kExitOk = 0;            // everything ran; every critical gate passed
inline constexpr int kExitGateFailed = 1;    // a critical gate failed
inline constexpr int kExitInvalidInput = 2;  // invalid scenario, flag or usage; nothing started
inline constexpr int kExitRunError = 3;      // a child died, a deadline passed, interrupted, ...

}  // namespace benchgate::cli
