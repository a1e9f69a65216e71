// Everything a user of polyhe includes in one line: the three schemes' user API (ckks.hpp;
// bgv.hpp, which holds BFV) and the public polynomial arithmetic under them — NTT plans and
// negacyclic products, RNS bases, ring contexts and polynomials, the batch API for devices, the
// thread pool. Kernels and scheme internals (arith/'s reductions, cpu/, ring/'s key switching and
// rescaling, rns/'s converters and rounders, rlwe/'s shared operations) are expert headers,
// included by name; rns/bigint.hpp too (big integers through GMP: nothing here includes a
// third-party header).
#pragma once

#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/bgv.hpp"
#include "polyhe/ckks.hpp"
#include "polyhe/core/serial.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/ntt/batch.hpp"
#include "polyhe/ntt/cyclic/cyclotomic.hpp"
#include "polyhe/ntt/cyclic/plan.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"
#include "polyhe/ntt/plan.hpp"
#include "polyhe/ntt/polymul.hpp"
#include "polyhe/ntt/variant.hpp"
#include "polyhe/ring/context.hpp"
#include "polyhe/ring/poly.hpp"
#include "polyhe/rlwe/batch.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rns/basis.hpp"
