// Which store errors are the user's to fix (an unknown run, a bad baseline name: exit 2) and
// which are the database's (exit 3). The store reports errors as messages only, so this reads
// the phrases the store uses for the user's mistakes; tests/e2e/test_history.py pins them.
#pragma once

#include <string_view>

namespace benchgate::history {

bool is_user_error(std::string_view store_message);

}  // namespace benchgate::history
