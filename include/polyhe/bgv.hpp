// The BGV and BFV user API: exact arithmetic modulo t on vectors of integers (BFV is BGV's
// scale-invariant mode: bgv::Scheme::bfv). One include gives the context and what it makes (key
// generator, encryptor, decryptor, evaluator), the encoders (batching over x^N + 1, HElib's slots
// over Φ_m and their rotations, shifts and sums: SlotArray), serialisation and authentication,
// and devices. ckks.hpp is the same for CKKS, in the
// same shape.
//
// The building blocks below the schemes — ring/, rns/, ntt/, cpu/, arith/, and rlwe/'s key
// switching — are expert headers: include them by name when you need them.
#pragma once

#include "polyhe/backend/emulated.hpp"
#include "polyhe/bgv/bgv.hpp"
#include "polyhe/bgv/context.hpp"
#include "polyhe/bgv/encoder.hpp"
#include "polyhe/bgv/serial.hpp"
#include "polyhe/bgv/slot_array.hpp"
#include "polyhe/bgv/slots.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ring/device.hpp"
#include "polyhe/rlwe/authentication.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rlwe/origin.hpp"
#include "polyhe/rlwe/parameters.hpp"
#include "polyhe/rlwe/security.hpp"
#include "polyhe/rlwe/serial.hpp"
#include "polyhe/version.hpp"
