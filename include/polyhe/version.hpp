#pragma once

namespace polyhe {
inline constexpr const char* kVersion = "0.1.0";
}
