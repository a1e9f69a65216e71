// KeySwitchParts moved to the ring layer (ring/key_parts.hpp), where the key switch runs; the rlwe
// name stays for the keys and their users.
#pragma once

#include "polyhe/ring/key_parts.hpp"

namespace polyhe::rlwe {
using polyhe::KeySwitchParts;
}  // namespace polyhe::rlwe
