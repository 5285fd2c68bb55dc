// A free TCP port on the loopback interface, for ${port:NAME}.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>

#include "common/util/expected.h"

namespace benchgate::scenario {

// A port no other program is likely to take before the system under test binds it. The kernel
// hands out ports of its ephemeral range (/proc/sys/net/ipv4/ip_local_port_range) to every
// bind(0) and every outgoing connection, so a port from that range that was free a moment ago
// may be another program's listener by the time the system under test starts, and the
// orchestrator's readiness probe would then reach that program. The port is therefore drawn at
// random from 10000-65535 outside that range and checked by binding it on every address
// (IPv6 and IPv4 wildcard, so a listener on any local address is seen; IPv4's alone where IPv6
// cannot be used). The kernel's choice, bind(127.0.0.1:0), checked the same way
// (kernel_port_free_everywhere), is the fallback when the range leaves no room, when 64 ports
// drawn were all taken, or when a port cannot be checked at all.
Expected<uint16_t> allocate_loopback_port();

// allocate_loopback_port's fallback, given the kernel's choice (`kernel_port`: the port of a
// bind to 127.0.0.1:0, or its failure, returned as is). The kernel finds a port free on
// 127.0.0.1 only, and a key may name it on another loopback address (127.0.0.53:${port:sut},
// [::1]:...), where a listener holds no port of 127.0.0.1's: each choice is checked on every
// address as a drawn port is, and the kernel asked again, up to 64 times; then an error. A
// choice that cannot be checked at all (the check itself fails) stands. Exposed for tests.
Expected<uint16_t> kernel_port_free_everywhere(
    const std::function<Expected<uint16_t>()>& kernel_port);

// The kernel's ephemeral range as /proc/sys/net/ipv4/ip_local_port_range writes it ("32768
// 60999"), or nothing when the text is not two ports in order.
std::optional<std::pair<uint16_t, uint16_t>> parse_port_range(std::string_view text);

}  // namespace benchgate::scenario
