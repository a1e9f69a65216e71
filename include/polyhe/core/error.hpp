// The error hierarchy of polyhe. Public entry points throw these with a message that names the
// offending value and the rule it broke; kernels and inner loops throw nothing.
#pragma once

#include <stdexcept>
#include <string>

namespace polyhe {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A parameter (modulus, length, root, variant, ...) outside the range an algorithm serves.
class InvalidParameter : public Error {
 public:
  using Error::Error;
};

/// A parameter set weaker than the requested security level.
class InsecureParameters : public Error {
 public:
  using Error::Error;
};

/// Objects from different contexts (parameters, plans, levels) combined.
class MismatchedContext : public Error {
 public:
  using Error::Error;
};

/// Serialised or user-supplied data that fails validation.
class CorruptData : public Error {
 public:
  using Error::Error;
};

/// A failed device (CUDA) call; the message names the call.
class DeviceError : public Error {
 public:
  using Error::Error;
};

}  // namespace polyhe
