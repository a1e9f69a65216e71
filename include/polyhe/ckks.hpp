// The CKKS user API: approximate arithmetic on vectors of real or complex numbers. One include
// gives the context and what it makes (key generator, encryptor, decryptor, evaluator),
// serialisation and authentication, devices, and bootstrapping with the linear transforms and
// polynomials under it. bgv.hpp is the same for BGV and BFV, in the same shape.
//
// The building blocks below the schemes — ring/, rns/, ntt/, cpu/, arith/, and rlwe/'s key
// switching — are expert headers: include them by name when you need them.
#pragma once

#include "polyhe/backend/emulated.hpp"
#include "polyhe/ckks/bootstrap.hpp"
#include "polyhe/ckks/bootstrap_presets.hpp"
#include "polyhe/ckks/ckks.hpp"
#include "polyhe/ckks/context.hpp"
#include "polyhe/ckks/linear_transform.hpp"
#include "polyhe/ckks/polynomial.hpp"
#include "polyhe/ckks/serial.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ring/device.hpp"
#include "polyhe/rlwe/authentication.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rlwe/origin.hpp"
#include "polyhe/rlwe/parameters.hpp"
#include "polyhe/rlwe/security.hpp"
#include "polyhe/rlwe/serial.hpp"
#include "polyhe/version.hpp"
